//! The token tree as the runtime holds it: syntax's tree with the compiled form
//! ([`Code`]) in each block's cell. Everything else about tokens is syntax's.

use super::compile::Code;

pub use crate::syntax::tree::{
    alias_target, drop_block, hash_items, literal_string_elements, name_literal, normalize,
    write_block, write_block_polled, write_items, Name, NameLiteral, ALIASES,
};

/// A program, a User Word body or a CodeBlock, as written, with its compiled form.
pub type Block = crate::syntax::tree::Block<Code>;

/// One unit of a [`Block`].
pub type Item = crate::syntax::tree::Item<Code>;

/// A parsed program whose blocks compile to [`Code`].
pub type Program = crate::syntax::parser::Program<Code>;
