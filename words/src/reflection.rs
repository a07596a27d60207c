//! STUB: family module `reflection` (see ARCHITECTURE.md); a helper implements it.
