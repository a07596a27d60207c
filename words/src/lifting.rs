//! STUB: family module `lifting` (see ARCHITECTURE.md); a helper implements it.
