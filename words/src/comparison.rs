//! STUB: family module `comparison` (see ARCHITECTURE.md); a helper implements it.
