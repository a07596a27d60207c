//! STUB: family module `collection` (see ARCHITECTURE.md); a helper implements it.
