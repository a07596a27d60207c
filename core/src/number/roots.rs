//! Square roots of rationals and exact powers (SQRT, POW), with their work charges.
//!
//! STUB: replaced by the tower helper.
