//! STUB: family module `json` (see ARCHITECTURE.md); a helper implements it.
