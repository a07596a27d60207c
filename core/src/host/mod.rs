//! The host layer: what hosts call and what they show — running a source end to end
//! ([`engine`]), the result envelope and its rendering ([`envelope`], [`node`],
//! [`render`], [`display`]), the static tools ([`check`], [`contract`]), the phrasebook and the
//! content identity of User Words ([`phrasebook`], [`identity`]).

pub mod check;
pub mod contract;
pub mod display;
pub mod engine;
pub mod envelope;
pub mod identity;
pub mod node;
pub mod phrasebook;
pub mod render;
pub mod suggest;
