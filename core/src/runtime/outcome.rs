//! Outcome identifiers: NIL reasons, error categories and the language error type.
//!
//! These ids are the vocabulary hosts branch on (`value`, `nil:<reason>`,
//! `error:<category>`); `spec/outcomes.json` is generated from the lists here.

pub use crate::syntax::Trap;
use std::fmt;

/// Why a NIL carries no value (docs/reference/nil-reasons.md).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, strum::IntoStaticStr,
)]
#[serde(rename_all = "camelCase")]
#[strum(serialize_all = "camelCase")]
pub enum NilReason {
    /// Absence written in the program (`NIL`, `nil` in a vector literal, JSON `null`).
    Literal,
    /// A zero divisor.
    DivisionByZero,
    /// A well-typed input outside the Word's domain.
    DomainMiss,
    /// An index that names no element.
    IndexOutOfBounds,
    /// The searched value does not occur.
    MissingField,
    /// Text that denotes no value, or a value with no exact text.
    InvalidEncoding,
    /// A diagnostic accessor found nothing to report.
    NotAvailable,
    /// A name that denotes no Word (`CONTRACT`).
    UnknownWord,
    /// Reserved: comparison is decidable, so this is never produced.
    Undecidable,
}

impl NilReason {
    /// Every reason, in specification order.
    pub const ALL: [NilReason; 9] = [
        NilReason::Literal,
        NilReason::DivisionByZero,
        NilReason::DomainMiss,
        NilReason::IndexOutOfBounds,
        NilReason::MissingField,
        NilReason::InvalidEncoding,
        NilReason::NotAvailable,
        NilReason::UnknownWord,
        NilReason::Undecidable,
    ];

    /// The stable lowerCamelCase id.
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// One sentence saying what the reason means.
    pub fn meaning(self) -> &'static str {
        match self {
            NilReason::Literal => "absence written in the program",
            NilReason::DivisionByZero => "a zero divisor",
            NilReason::DomainMiss => "a well-typed input outside the Word's domain",
            NilReason::IndexOutOfBounds => "an index names no element",
            NilReason::MissingField => "the searched value does not occur",
            NilReason::InvalidEncoding => {
                "text that denotes no value, or a value with no exact text"
            }
            NilReason::NotAvailable => "a diagnostic accessor found nothing to report",
            NilReason::UnknownWord => "a name that denotes no Word",
            NilReason::Undecidable => "reserved; never produced (comparison is decidable)",
        }
    }

    /// The reason with this id, if any.
    pub fn from_id(id: &str) -> Option<NilReason> {
        NilReason::ALL.into_iter().find(|r| r.id() == id)
    }
}

impl fmt::Display for NilReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// NIL reasons that earlier releases produced and this one never does.
pub const RETIRED_NIL_REASONS: [&str; 5] = [
    "emptySequence",
    "invalidLens",
    "stackUnderflow",
    "executionFailure",
    "spaceExhausted",
];

/// The fixed list of error categories (docs/reference/errors.md#the-categories).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, strum::IntoStaticStr,
)]
#[serde(rename_all = "camelCase")]
#[strum(serialize_all = "camelCase")]
pub enum ErrorCategory {
    /// The program text (or a block about to be stored or run) is not well formed.
    MalformedSource,
    /// A name resolves to nothing.
    UnknownWord,
    /// A Word needs more operands than its frame holds.
    StackUnderflow,
    /// An operand is of a domain the Word does not accept.
    TypeMismatch,
    /// Operands have incompatible shapes or lengths.
    ShapeMismatch,
    /// An operand is of the right domain but an unacceptable value.
    InvalidArgument,
    /// A `DEF`/`DEL`/`BIND` breaks a dictionary rule.
    DictionaryViolation,
    /// A block run by a Word left no value, or a non-Boolean where one is required.
    BlockViolation,
    /// A `#:contract` declaration is malformed or contradicted.
    ContractViolation,
    /// A host limit would be exceeded.
    ResourceLimitExceeded,
}

impl ErrorCategory {
    /// Every category, in specification order.
    pub const ALL: [ErrorCategory; 10] = [
        ErrorCategory::MalformedSource,
        ErrorCategory::UnknownWord,
        ErrorCategory::StackUnderflow,
        ErrorCategory::TypeMismatch,
        ErrorCategory::ShapeMismatch,
        ErrorCategory::InvalidArgument,
        ErrorCategory::DictionaryViolation,
        ErrorCategory::BlockViolation,
        ErrorCategory::ContractViolation,
        ErrorCategory::ResourceLimitExceeded,
    ];

    /// The stable lowerCamelCase id.
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// One sentence saying when the category is raised (from `error_meanings.tsv`,
    /// a data asset because the sentences name Words).
    pub fn meaning(self) -> &'static str {
        const MEANINGS: &str = include_str!("error_meanings.tsv");
        let id = self.id();
        MEANINGS
            .lines()
            .filter_map(|line| line.split_once('\t'))
            .find(|(key, _)| *key == id)
            .map_or("", |(_, sentence)| sentence)
    }

    /// The category with this id, if any.
    pub fn from_id(id: &str) -> Option<ErrorCategory> {
        ErrorCategory::ALL.into_iter().find(|c| c.id() == id)
    }
}

impl fmt::Display for ErrorCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

pub use crate::syntax::Pos;

/// A language ERROR: the category, a one-line message and where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LangError {
    /// The error category.
    pub category: ErrorCategory,
    /// A one-line message written for a model.
    pub message: String,
    /// For `resourceLimitExceeded`: the limit's name.
    pub resource: Option<&'static str>,
    /// The Word held responsible (as written for `unknownWord`).
    pub word: Option<String>,
    /// The responsible token's position, when it has one.
    pub pos: Option<Pos>,
    /// For an unknown name: the name as written, whose near misses the host appends
    /// to the message ([`crate::suggest::complete`]) once it knows the dictionary.
    pub near_misses_of: Option<String>,
    /// A known trap the source fell into, whose hint the host appends.
    pub trap: Option<Trap>,
    /// The User Word calls the error happened inside (`error.trace`), when any.
    pub trace: Option<Box<Trace>>,
}

/// How many call sites a trace shows at most (MCP-33; docs/mcp/envelope.md): the innermost ones,
/// and the outermost in the last place when the calls go deeper.
pub const TRACE_MAX_CALLS: usize = 8;

/// The User Word calls a run was inside when it raised an error, innermost first
/// (at most [`TRACE_MAX_CALLS`]). A tail call replaces its Word's frame, so it
/// appears once, at the call that entered the loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The calls shown: the innermost ones, then — when `omitted > 0` — the outermost.
    pub calls: Vec<CallSite>,
    /// How many calls between the last two shown are left out.
    pub omitted: usize,
}

/// How deep a run was in User Word calls when a limit stopped it, once that is deep
/// enough to name: a recursion that never reaches its base case nests until a limit
/// stops it, and the answer says so instead of only naming the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeepRecursion {
    /// The innermost User Word called (its normalized name).
    pub word: std::sync::Arc<str>,
    /// How many User Word calls were open.
    pub depth: usize,
}

impl DeepRecursion {
    /// Nested User Word calls from which a stopped run names its depth: no program
    /// reaches it but by recursion, and none that recurses on purpose needs it (each
    /// level costs an execution step and memory until it returns; a tail call nests none).
    pub const CALLS: usize = 10_000;

    /// The depth when it is at least [`DeepRecursion::CALLS`].
    pub fn of(word: std::sync::Arc<str>, depth: usize) -> Option<DeepRecursion> {
        (depth >= DeepRecursion::CALLS).then_some(DeepRecursion { word, depth })
    }

    /// `AGAIN was 100,000 User Word calls deep`, for a message.
    pub fn describe(&self) -> String {
        let digits = self.depth.to_string();
        let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        format!("{} was {grouped} User Word calls deep", self.word)
    }
}

/// One User Word call: which Word, and where it was called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The Word called (its normalized name).
    pub word: std::sync::Arc<str>,
    /// The calling token's position (in a prelude's text when a prelude Word called it).
    pub pos: Option<Pos>,
    /// The origin of the text the Word's body was written in (0 = the caller's source).
    pub body_origin: u16,
}

impl LangError {
    /// An error of `category` with `message` and nothing else yet.
    pub fn new(category: ErrorCategory, message: impl Into<String>) -> LangError {
        LangError {
            category,
            message: message.into(),
            resource: None,
            word: None,
            pos: None,
            near_misses_of: None,
            trap: None,
            trace: None,
        }
    }

    /// The same error, asking the host to suggest names near `written`.
    pub fn suggesting_near(mut self, written: impl Into<String>) -> LangError {
        self.near_misses_of = Some(written.into());
        self
    }

    /// The same error naming the Word held responsible, unless one is named already.
    pub fn with_word(mut self, word: impl Into<String>) -> LangError {
        if self.word.is_none() {
            self.word = Some(word.into());
        }
        self
    }

    /// The same error at `pos`, unless it has a position already.
    pub fn at(mut self, pos: Option<Pos>) -> LangError {
        if self.pos.is_none() {
            self.pos = pos;
        }
        self
    }

    /// The outcome id `error:<category>`.
    pub fn outcome_id(&self) -> String {
        format!("error:{}", self.category.id())
    }
}

impl fmt::Display for LangError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.category.id(), self.message)
    }
}

impl std::error::Error for LangError {}

/// The longest message a result carries, in characters (MCP-33).
pub const MESSAGE_MAX_CHARS: usize = 1000;

/// `prefix` followed by `items` joined with `, `, cut with `, …` so that the whole
/// stays within [`MESSAGE_MAX_CHARS`].
pub fn cap_list_message(prefix: &str, items: &[String]) -> String {
    let mut out = prefix.to_string();
    let mut used = out.chars().count();
    for (i, item) in items.iter().enumerate() {
        let piece = if i == 0 {
            item.clone()
        } else {
            format!(", {item}")
        };
        let n = piece.chars().count();
        if used + n + 3 > MESSAGE_MAX_CHARS && i + 1 < items.len() || used + n > MESSAGE_MAX_CHARS {
            out.push_str(", …");
            return out;
        }
        out.push_str(&piece);
        used += n;
    }
    out
}

/// Shorthand constructors, one per category, so call sites read as the spec does.
pub mod err {
    use super::{ErrorCategory, LangError};

    /// `malformedSource` with `msg`.
    pub fn malformed(msg: impl Into<String>) -> LangError {
        LangError::new(ErrorCategory::MalformedSource, msg)
    }
    /// `typeMismatch` with `msg`.
    pub fn type_mismatch(msg: impl Into<String>) -> LangError {
        LangError::new(ErrorCategory::TypeMismatch, msg)
    }
    /// `shapeMismatch` with `msg`.
    pub fn shape_mismatch(msg: impl Into<String>) -> LangError {
        LangError::new(ErrorCategory::ShapeMismatch, msg)
    }
    /// `invalidArgument` with `msg`.
    pub fn invalid_argument(msg: impl Into<String>) -> LangError {
        LangError::new(ErrorCategory::InvalidArgument, msg)
    }
    /// `stackUnderflow` with `msg`.
    pub fn stack_underflow(msg: impl Into<String>) -> LangError {
        LangError::new(ErrorCategory::StackUnderflow, msg)
    }
    /// `dictionaryViolation` with `msg`.
    pub fn dictionary(msg: impl Into<String>) -> LangError {
        LangError::new(ErrorCategory::DictionaryViolation, msg)
    }
    /// `blockViolation` with `msg`.
    pub fn block_violation(msg: impl Into<String>) -> LangError {
        LangError::new(ErrorCategory::BlockViolation, msg)
    }
    /// `unknownWord` for `name` as written.
    pub fn unknown_word(name: &str) -> LangError {
        LangError::new(ErrorCategory::UnknownWord, format!("Unknown word: {name}")).with_word(name)
    }
}

/// The outcomes registry document (`spec/outcomes.json`): every NIL reason, every
/// error category and every outcome id, as compact JSON.
pub fn outcomes_document() -> String {
    /// One NIL reason of the document.
    #[derive(serde::Serialize)]
    struct Reason {
        id: NilReason,
        meaning: &'static str,
        produced: bool,
    }
    /// One error category of the document.
    #[derive(serde::Serialize)]
    struct Category {
        id: ErrorCategory,
        meaning: &'static str,
    }
    /// The document.
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Document {
        schema_version: u64,
        specification_version: &'static str,
        nil_reasons: Vec<Reason>,
        retired_nil_reasons: &'static [&'static str],
        error_categories: Vec<Category>,
        outcomes: Vec<String>,
    }
    let mut outcomes = vec!["value".to_string()];
    outcomes.extend(NilReason::ALL.iter().map(|r| format!("nil:{}", r.id())));
    outcomes.extend(
        ErrorCategory::ALL
            .iter()
            .map(|c| format!("error:{}", c.id())),
    );
    let document = Document {
        schema_version: 1,
        specification_version: crate::SPECIFICATION_VERSION,
        nil_reasons: NilReason::ALL
            .iter()
            .map(|&id| Reason {
                id,
                meaning: id.meaning(),
                produced: id != NilReason::Undecidable,
            })
            .collect(),
        retired_nil_reasons: &RETIRED_NIL_REASONS,
        error_categories: ErrorCategory::ALL
            .iter()
            .map(|&id| Category {
                id,
                meaning: id.meaning(),
            })
            .collect(),
        outcomes,
    };
    // Plain structs, strings and sequences: serde_json cannot fail on them.
    let mut out = serde_json::to_string(&document).unwrap_or_default();
    out.push('\n');
    out
}

impl From<crate::syntax::SyntaxError> for LangError {
    /// Every syntax error is `malformedSource`, at the position the parser found.
    fn from(e: crate::syntax::SyntaxError) -> LangError {
        let mut out = err::malformed(e.message).at(e.pos);
        out.trap = e.trap;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_category_has_exactly_one_meaning() {
        let table = include_str!("error_meanings.tsv");
        for c in ErrorCategory::ALL {
            let lines = table
                .lines()
                .filter(|l| l.split_once('\t').is_some_and(|(id, _)| id == c.id()))
                .count();
            assert_eq!(lines, 1, "{}", c.id());
            assert!(!c.meaning().is_empty(), "{}", c.id());
        }
        let rows = table.lines().filter(|l| !l.starts_with('#')).count();
        assert_eq!(rows, ErrorCategory::ALL.len());
    }
}
