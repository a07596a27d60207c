//! The pure backend's tests, one binary: each module is one file of this folder,
//! `common` their shared helpers.

mod common;

mod perf;
mod properties;
mod tower;
