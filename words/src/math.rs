//! STUB: family module `math` (see ARCHITECTURE.md); a helper implements it.
