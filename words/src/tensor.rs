//! STUB: family module `tensor` (see ARCHITECTURE.md); a helper implements it.
