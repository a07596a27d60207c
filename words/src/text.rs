//! STUB: family module `text` (see ARCHITECTURE.md); a helper implements it.
