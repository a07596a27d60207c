//! Source text → tokens with positions (docs/reference/lexical.md), and `#:` directive lines.
//!
//! The lexer classifies word-shaped tokens (number, directive, name) but checks no
//! structure beyond what it must: reserved characters and unclosed strings are
//! `malformedSource` here; bracket balance and the placement rules are the parser's.

use super::growth::push_bounded;
use super::literal;
use super::{ParseFailure, Pos, Progress, SyntaxError, Unwatched};

/// Which bracket a structural token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delim {
    /// `[` … `]`
    Vector,
    /// `{` … `}`
    Block,
}

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokKind {
    /// A number literal (the lexeme as written).
    Number(String),
    /// A string literal (its content).
    Str(String),
    /// A name (as written).
    Name(String),
    /// The VENT directive.
    Vent,
    /// The clause separator `|`.
    Bar,
    /// `[` or `{`.
    Open(Delim),
    /// `]` or `}`.
    Close(Delim),
    /// A line break.
    LineBreak,
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tok {
    /// The token.
    pub kind: TokKind,
    /// Position of its first character (absent for tokens built by `REFLECT`).
    pub pos: Option<Pos>,
}

/// A `#:` line: a directive to hosts and checkers, a comment to the evaluator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectiveLine {
    /// 1-based line number.
    pub line: u32,
    /// The text after `#:` up to the end of the line (e.g. `contract INC inputs=1`).
    pub text: String,
}

/// The result of lexing a program.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// Tokens in order.
    pub tokens: Vec<Tok>,
    /// `#:` lines whose `#` is the first non-blank character of its line.
    pub directives: Vec<DirectiveLine>,
}

fn is_delimiter(c: char) -> bool {
    matches!(c, '[' | ']' | '{' | '}' | '(' | ')')
}

/// Whether a word-shaped lexeme is a spelling of VENT (`^` or any case of `VENT`).
pub fn is_vent_spelling(s: &str) -> bool {
    s == "^" || (s.len() == 4 && s.to_uppercase() == "VENT")
}

/// Tokenize `source`. `origin` tags every position (0 = the caller's source).
pub fn lex(source: &str, origin: u16) -> Result<Lexed, SyntaxError> {
    lex_from(source, origin, 1)
}

/// [`lex`] of a source whose first line is line `first_line` of something longer (a
/// `repl` session numbers its lines across the session).
pub fn lex_from(source: &str, origin: u16, first_line: u32) -> Result<Lexed, SyntaxError> {
    lex_watched(source, origin, first_line, &mut Unwatched).map_err(ParseFailure::into_syntax)
}

/// [`lex_from`], reporting its work to `progress`: the characters it reads, before it
/// holds the text as characters and as it goes (so a host can stop a huge text).
pub fn lex_watched(
    source: &str,
    origin: u16,
    first_line: u32,
    progress: &mut dyn Progress,
) -> Result<Lexed, ParseFailure> {
    // The text as characters: four bytes a character at most.
    progress.reserve((source.len() as u64).saturating_mul(4))?;
    let chars: Vec<char> = source.chars().collect();
    let mut out = Lexed::default();
    // Characters read since the last report.
    let mut reported = 0usize;
    let mut line: u32 = first_line.max(1);
    let mut col: u32 = 1;
    let mut i = 0usize;
    let mut line_has_token = false;
    // Innermost open delimiters, only to tell `^`/VENT inside a vector literal.
    let mut open: Vec<Delim> = Vec::new();

    let advance = |c: char, line: &mut u32, col: &mut u32| {
        if c == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
    };

    while i < chars.len() {
        if i - reported >= 64 {
            progress.advance((i - reported) as u64)?;
            reported = i;
        }
        let c = chars[i];
        let pos = Pos {
            line,
            column: col,
            origin,
        };
        if c == '\n' {
            if !matches!(
                out.tokens.last(),
                Some(Tok {
                    kind: TokKind::LineBreak,
                    ..
                })
            ) {
                push_bounded(
                    &mut out.tokens,
                    Tok {
                        kind: TokKind::LineBreak,
                        pos: Some(pos),
                    },
                );
            }
            line_has_token = false;
            advance(c, &mut line, &mut col);
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            advance(c, &mut line, &mut col);
            i += 1;
            continue;
        }
        if c == '#' {
            let start = i;
            while i < chars.len() && chars[i] != '\n' {
                advance(chars[i], &mut line, &mut col);
                i += 1;
            }
            let text: String = chars[start + 1..i].iter().collect();
            if !line_has_token {
                if let Some(rest) = text.strip_prefix(':') {
                    out.directives.push(DirectiveLine {
                        line: pos.line,
                        text: rest.to_string(),
                    });
                }
                // A comment-only line produces no line-break token: consume its LF.
                if i < chars.len() {
                    advance(chars[i], &mut line, &mut col);
                    i += 1;
                }
            }
            continue;
        }
        if c == '(' || c == ')' {
            return Err(SyntaxError::message(format!(
                "'{c}' is reserved and cannot appear outside a string or comment (line {}, column {})",
                pos.line, pos.column
            ))
            .at(Some(pos))
            .into());
        }
        line_has_token = true;
        match c {
            '[' | '{' => {
                let d = if c == '[' {
                    Delim::Vector
                } else {
                    Delim::Block
                };
                open.push(d);
                push_bounded(
                    &mut out.tokens,
                    Tok {
                        kind: TokKind::Open(d),
                        pos: Some(pos),
                    },
                );
                advance(c, &mut line, &mut col);
                i += 1;
                continue;
            }
            ']' | '}' => {
                let d = if c == ']' {
                    Delim::Vector
                } else {
                    Delim::Block
                };
                open.pop();
                push_bounded(
                    &mut out.tokens,
                    Tok {
                        kind: TokKind::Close(d),
                        pos: Some(pos),
                    },
                );
                advance(c, &mut line, &mut col);
                i += 1;
                continue;
            }
            _ => {}
        }
        if c == '\'' {
            // The literal ends at the first quote followed by whitespace, a
            // delimiter, `#` or the end of input.
            let mut j = i + 1;
            let close = loop {
                if j >= chars.len() {
                    break None;
                }
                if chars[j] == '\'' {
                    match chars.get(j + 1) {
                        None => break Some(j),
                        Some(&n) if n.is_whitespace() || is_delimiter(n) || n == '#' => {
                            break Some(j)
                        }
                        _ => {}
                    }
                }
                j += 1;
            };
            let Some(end) = close else {
                return Err(SyntaxError::message(format!(
                    "unclosed string literal starting at line {}, column {}",
                    pos.line, pos.column
                ))
                .at(Some(pos))
                .into());
            };
            let text: String = chars[i + 1..end].iter().collect();
            for &ch in &chars[i..=end] {
                advance(ch, &mut line, &mut col);
            }
            i = end + 1;
            push_bounded(
                &mut out.tokens,
                Tok {
                    kind: TokKind::Str(text),
                    pos: Some(pos),
                },
            );
            continue;
        }
        let start = i;
        while i < chars.len() {
            let ch = chars[i];
            if ch.is_whitespace() || is_delimiter(ch) || ch == '#' {
                break;
            }
            advance(ch, &mut line, &mut col);
            i += 1;
        }
        let lexeme: String = chars[start..i].iter().collect();
        let in_vector = open.last() == Some(&Delim::Vector);
        let kind = if literal::scan(&lexeme).is_some() {
            TokKind::Number(lexeme)
        } else if lexeme == "|" {
            TokKind::Bar
        } else if is_vent_spelling(&lexeme) && !in_vector {
            TokKind::Vent
        } else {
            TokKind::Name(lexeme)
        };
        push_bounded(
            &mut out.tokens,
            Tok {
                kind,
                pos: Some(pos),
            },
        );
    }
    if matches!(
        out.tokens.last(),
        Some(Tok {
            kind: TokKind::LineBreak,
            ..
        })
    ) {
        out.tokens.pop();
    }
    progress.advance((chars.len() - reported) as u64)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokKind> {
        lex(src, 0)
            .unwrap()
            .tokens
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn delimiters_need_no_space() {
        assert_eq!(
            kinds("[1 2]"),
            vec![
                TokKind::Open(Delim::Vector),
                TokKind::Number("1".into()),
                TokKind::Number("2".into()),
                TokKind::Close(Delim::Vector)
            ]
        );
    }

    #[test]
    fn strings_close_only_before_a_boundary() {
        assert_eq!(kinds("'It's fine'"), vec![TokKind::Str("It's fine".into())]);
        assert_eq!(kinds("''''"), vec![TokKind::Str("''".into())]);
        assert_eq!(kinds("'a b'c d'"), vec![TokKind::Str("a b'c d".into())]);
        assert!(lex("'x'y", 0).is_err());
    }

    #[test]
    fn blank_lines_collapse_and_trailing_break_drops() {
        assert_eq!(
            kinds("1\n\n\n2\n"),
            vec![
                TokKind::Number("1".into()),
                TokKind::LineBreak,
                TokKind::Number("2".into())
            ]
        );
        assert_eq!(
            kinds("\n1"),
            vec![TokKind::LineBreak, TokKind::Number("1".into())]
        );
    }

    #[test]
    fn comment_only_lines_vanish() {
        assert_eq!(
            kinds("1\n# note\n2"),
            vec![
                TokKind::Number("1".into()),
                TokKind::LineBreak,
                TokKind::Number("2".into())
            ]
        );
        assert_eq!(
            kinds("1 # note\n2"),
            vec![
                TokKind::Number("1".into()),
                TokKind::LineBreak,
                TokKind::Number("2".into())
            ]
        );
    }

    #[test]
    fn vent_is_a_name_inside_vectors() {
        assert_eq!(kinds("^"), vec![TokKind::Vent]);
        assert_eq!(kinds("vEnT"), vec![TokKind::Vent]);
        assert_eq!(
            kinds("[ ^ ]"),
            vec![
                TokKind::Open(Delim::Vector),
                TokKind::Name("^".into()),
                TokKind::Close(Delim::Vector)
            ]
        );
    }

    #[test]
    fn directives_are_collected_only_at_line_start() {
        let l = lex("  #:contract F inputs=1\n1 #:contract G inputs=2", 0).unwrap();
        assert_eq!(
            l.directives,
            vec![DirectiveLine {
                line: 1,
                text: "contract F inputs=1".into()
            }]
        );
    }

    #[test]
    fn reserved_parens_are_malformed() {
        assert!(lex("( 1 )", 0).is_err());
        assert!(lex("a(b", 0).is_err());
        assert!(lex("'(' # (", 0).is_ok());
    }

    #[test]
    fn columns_count_scalar_values() {
        let l = lex("'é' x", 0).unwrap();
        assert_eq!(l.tokens[1].pos.unwrap().column, 5);
    }
}
