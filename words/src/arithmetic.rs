//! STUB: family module `arithmetic` (see ARCHITECTURE.md); a helper implements it.
