//! STUB: family module `higher_order` (see ARCHITECTURE.md); a helper implements it.
