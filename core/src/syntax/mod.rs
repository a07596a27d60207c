//! The syntax layer: source text → tokens → the tree of tokens as written.
//!
//! It knows nothing above it — no values, no Words, no limits beyond the plain
//! numbers it is handed — so every layer can read programs the same way:
//! [`lexer`] classifies tokens, [`parser`] checks structure and builds the [`tree`],
//! [`literal`] recognizes number lexemes. Its one error kind is [`SyntaxError`]
//! (the runtime reports it as `malformedSource`, message and position unchanged).

pub mod growth;
pub mod lexer;
pub mod literal;
pub mod parser;
pub mod tree;

/// A position in a program text: 1-based line and column (column in Unicode scalar values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    /// 1-based line; lines end at LF only.
    pub line: u32,
    /// 1-based column counted in Unicode scalar values.
    pub column: u32,
    /// Which text the position belongs to (0 = the caller's source).
    pub origin: u16,
}

impl Pos {
    /// A position in the caller's own source.
    pub fn new(line: u32, column: u32) -> Pos {
        Pos {
            line,
            column,
            origin: 0,
        }
    }

    /// Whether the position is in the caller's own source (not a prelude).
    pub fn is_caller_source(self) -> bool {
        self.origin == 0
    }
}

/// A mistake users of other languages make that an error can teach about: the host
/// appends the hint the vocabulary gives for it (`crate::word::hint`). Its id names it
/// in `check`'s warnings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "camelCase")]
#[strum(serialize_all = "camelCase")]
pub enum Trap {
    /// A `^` right after a number: VENT where a power was meant (an error when nothing
    /// follows it on its line, a `check` warning otherwise).
    VentAfterNumber,
    /// A token written in double quotes (read as a name): strings are single-quoted.
    DoubleQuoted,
}

impl Trap {
    /// Every trap.
    pub const ALL: [Trap; 2] = [Trap::VentAfterNumber, Trap::DoubleQuoted];

    /// The id (`ventAfterNumber`, …).
    pub fn id(self) -> &'static str {
        self.into()
    }
}

/// Where the syntax layer reports its work, so a host can stop a huge parse (a deadline,
/// a memory ceiling): the lexer, the structure check and the tree builder call
/// [`Progress::advance`] with the units of work done since the last call (characters
/// read, tokens checked or placed), and [`Progress::reserve`] before one big allocation.
pub trait Progress {
    /// Count `units` of work; `Err` stops the parse.
    fn advance(&mut self, units: u64) -> Result<(), Stopped>;
    /// Ask before `bytes` are allocated at once; `Err` stops the parse.
    fn reserve(&mut self, bytes: u64) -> Result<(), Stopped>;
}

/// A parse stopped by its [`Progress`] (the host's doing), not by the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

/// Progress nobody watches: tools and tests that parse small, known texts.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unwatched;

impl Progress for Unwatched {
    fn advance(&mut self, _units: u64) -> Result<(), Stopped> {
        Ok(())
    }
    fn reserve(&mut self, _bytes: u64) -> Result<(), Stopped> {
        Ok(())
    }
}

/// Why a watched parse produced no tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseFailure {
    /// The text is not a well-formed program.
    Syntax(SyntaxError),
    /// The [`Progress`] stopped it.
    Stopped,
}

impl From<SyntaxError> for ParseFailure {
    fn from(e: SyntaxError) -> ParseFailure {
        ParseFailure::Syntax(e)
    }
}

impl From<Stopped> for ParseFailure {
    fn from(_: Stopped) -> ParseFailure {
        ParseFailure::Stopped
    }
}

impl ParseFailure {
    /// The syntax error of an unwatched parse (which is never stopped).
    pub fn into_syntax(self) -> SyntaxError {
        match self {
            ParseFailure::Syntax(e) => e,
            ParseFailure::Stopped => SyntaxError::message("the parse was stopped"),
        }
    }
}

/// Source that is not a well-formed program: a one-line message for a model and the
/// position of the offending token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// What is wrong and how to fix it.
    pub message: String,
    /// Where, when the token has a position.
    pub pos: Option<Pos>,
    /// The trap the source fell into, if it is a known one.
    pub trap: Option<Trap>,
}

impl SyntaxError {
    /// An error saying `message`, not yet placed.
    pub fn message(message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            pos: None,
            trap: None,
        }
    }

    /// The error marked as falling into `trap`.
    pub fn trap(mut self, trap: Trap) -> SyntaxError {
        self.trap = Some(trap);
        self
    }

    /// The error placed at `pos`.
    pub fn at(mut self, pos: Option<Pos>) -> SyntaxError {
        self.pos = pos;
        self
    }
}
