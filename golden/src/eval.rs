//! The evaluation's scorer: reads a trace of an agent answering the bilingual corpus
//! (`eval/cases.json`) through the MCP server and scores every attempt — correct or not,
//! tool calls, error results, repairs — as `eval/README.md` defines.
//!
//! A trace is JSON Lines: a `session` line first (who answered, against which server),
//! then, per attempt (a case in one language), its `call` lines in order and one `answer`
//! line. Written by `eval/agent_client.py`; scored by `cargo run -p ajisai-golden --bin
//! eval-score -- TRACE…`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One line of a trace.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Line {
    /// The first line: who answered, against which server.
    Session(Session),
    /// One tool call of an attempt, with the result the server gave.
    Call(Call),
    /// An attempt's final answer to the user.
    Answer(Answer),
}

/// The `session` line.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// When the trace was taken (UTC date).
    #[serde(default)]
    pub date: String,
    /// The server's version (`mcp.serverVersion`).
    #[serde(default)]
    pub server_version: String,
    /// Who answered.
    #[serde(default)]
    pub agent: String,
}

/// A `call` line.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// The case's id.
    pub case: String,
    /// The prompt's language (`en`, `ja`).
    pub lang: String,
    /// The tool called.
    pub tool: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Value,
    /// The result's `structuredContent` (the envelope).
    #[serde(default)]
    pub result: Value,
}

/// An `answer` line.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Answer {
    /// The case's id.
    pub case: String,
    /// The prompt's language.
    pub lang: String,
    /// What the agent told the user.
    pub text: String,
}

/// One case of the corpus, as the scorer needs it.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Case {
    /// The case's id.
    pub id: String,
    /// The tool the question needs (`None`: answer without a call).
    pub expected_tool: Option<String>,
    /// JSON Pointers into the envelope and the values a right call shows.
    pub expect: Option<BTreeMap<String, Value>>,
    /// The question, by language.
    #[serde(default)]
    pub prompts: BTreeMap<String, String>,
}

/// The corpus file.
#[derive(Deserialize)]
struct Corpus {
    cases: Vec<Case>,
}

/// The cases of `eval/cases.json`'s text.
pub fn corpus(text: &str) -> Result<Vec<Case>, String> {
    serde_json::from_str::<Corpus>(text)
        .map(|c| c.cases)
        .map_err(|e| format!("eval/cases.json: {e}"))
}

/// A parsed trace.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Its session line.
    pub session: Session,
    /// Its calls, in order.
    pub calls: Vec<Call>,
    /// Its answers, in order.
    pub answers: Vec<Answer>,
}

/// Parse a trace; the error names the line.
pub fn trace(text: &str) -> Result<Trace, String> {
    let mut trace = Trace::default();
    let mut seen_session = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line =
            serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        match parsed {
            Line::Session(s) if !seen_session && n == 0 => {
                trace.session = s;
                seen_session = true;
            }
            Line::Session(_) => return Err(format!("line {}: a second session line", n + 1)),
            Line::Call(c) => trace.calls.push(c),
            Line::Answer(a) => trace.answers.push(a),
        }
    }
    if !seen_session {
        return Err("line 1: the trace starts with its session line".to_string());
    }
    Ok(trace)
}

/// How one attempt (a case in one language) went.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// The case's id.
    pub case: String,
    /// The prompt's language.
    pub lang: String,
    /// Whether it is correct (see [`score`]).
    pub correct: bool,
    /// Tool calls made.
    pub calls: usize,
    /// Calls whose result was `error` or `hostError`.
    pub errors: usize,
    /// Whether an error result that did not meet the expectation was followed by a call
    /// that did.
    pub repaired: bool,
    /// Why it is not correct (empty when it is).
    pub why: String,
    /// Numbers the answer gives that neither the question nor any call of the attempt
    /// (its arguments or its result) holds: figures the agent made itself (a decimal
    /// beside an exact fraction, a fact from memory). Reported, not scored.
    pub unsourced: Vec<String>,
}

/// A whole trace's score.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Score {
    /// The trace's session.
    pub session: Session,
    /// Every attempt of the corpus, in corpus order, English first.
    pub attempts: Vec<Attempt>,
    /// Correct attempts.
    pub correct: usize,
    /// Attempts scored (every case in every language).
    pub total: usize,
    /// Tool calls in all.
    pub calls: usize,
    /// Error results in all.
    pub errors: usize,
    /// Repaired attempts.
    pub repairs: usize,
    /// Attempts whose answer gives a number from neither the question nor a result.
    pub unsourced: usize,
}

/// The languages of the corpus, in scoring order.
pub const LANGUAGES: [&str; 2] = ["en", "ja"];

/// Whether an envelope shows every expectation: JSON equality at each pointer, except
/// what depends on how the program was written rather than on its answer —
/// `/stackDisplay` is met by a stack holding the expected slots as a consecutive run (a
/// program may keep operands or compute more beside the answer) and is not asked of an
/// error (its residual stack follows the program's order); `/prelude` is met when every
/// expected Word was defined (more may have been requested).
fn meets(result: &Value, expect: &BTreeMap<String, Value>) -> bool {
    let answers = expect.get("/status").and_then(Value::as_str) == Some("ok");
    expect.iter().all(|(p, want)| match (p.as_str(), want) {
        ("/stackDisplay", _) if !answers => true,
        ("/stackDisplay", Value::Array(wanted)) if !wanted.is_empty() => result
            .pointer(p)
            .and_then(Value::as_array)
            .is_some_and(|got| got.windows(wanted.len()).any(|w| w == wanted.as_slice())),
        ("/prelude", Value::Array(wanted)) => result
            .pointer(p)
            .and_then(Value::as_array)
            .is_some_and(|got| wanted.iter().all(|w| got.contains(w))),
        _ => result.pointer(p) == Some(want),
    })
}

/// The numbers of a display the user must be told: each rational (`3/10`, `-2/1`) and
/// each term with a root (`2/1*sqrt(2)`) of a slot's display; Booleans, strings and
/// brackets need no telling in these exact forms.
fn numbers_of(display: &str) -> Vec<&str> {
    display
        .split_whitespace()
        .filter(|t| {
            t.contains("sqrt(")
                || t.trim_start_matches('-')
                    .split_once('/')
                    .is_some_and(|(n, d)| {
                        !n.is_empty()
                            && !d.is_empty()
                            && n.bytes().all(|b| b.is_ascii_digit())
                            && d.bytes().all(|b| b.is_ascii_digit())
                    })
        })
        .collect()
}

/// Whether `answer` gives `number`: its exact form, or for an integer `n/1` the number `n`
/// standing alone (not part of a longer run of digits).
fn gives(answer: &str, number: &str) -> bool {
    if answer.contains(number) {
        return true;
    }
    let Some(n) = number.strip_suffix("/1").filter(|n| !n.contains('/')) else {
        return false;
    };
    answer.match_indices(n).any(|(at, _)| {
        let before = answer[..at].chars().next_back();
        let after = answer[at + n.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit() || c == '/' || (c == '-' && !n.starts_with('-')))
            && !after.is_some_and(|c| c.is_ascii_digit() || c == '/')
    })
}

fn is_error(result: &Value) -> bool {
    matches!(result["status"].as_str(), Some("error" | "hostError"))
}

/// The numbers written in `text` — integers, decimals and fractions (`12`, `0.3`,
/// `-5/2`) — that `sources` does not contain as a whole number (digits, `.` and `/`
/// around them are part of the number).
pub fn unsourced_numbers(text: &str, sources: &str) -> Vec<String> {
    let numbers = |t: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut current = String::new();
        let chars: Vec<char> = t.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let joins = (c == '.' || c == '/')
                && !current.is_empty()
                && chars.get(i + 1).is_some_and(char::is_ascii_digit);
            if c.is_ascii_digit() || joins {
                current.push(c);
            } else if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
        out
    };
    let known: std::collections::BTreeSet<String> = numbers(sources).into_iter().collect();
    let mut missing: Vec<String> = numbers(text)
        .into_iter()
        .filter(|n| !known.contains(n))
        .filter(|n| {
            // An integer n/1 is given as n.
            !known.contains(&format!("{n}/1"))
        })
        .collect();
    missing.dedup();
    missing
}

/// Score `trace` against `cases`. An attempt is **correct** when:
/// - the case needs no call (`expectedTool` null): no call was made and an answer given;
/// - otherwise: a call of the expected tool returned an envelope meeting every `expect`
///   pointer (the expected `/stackDisplay` as a consecutive run of the stack and only
///   for an `ok` expectation, the expected `/prelude` among those defined), and, when
///   the expected `/status` is `ok`, the final answer gives every number of those slots
///   (`3/10`, `2/1*sqrt(2)`; an integer `n/1` may be written `n`).
///
/// An attempt without an answer line is not correct. Calls and answers are matched to
/// attempts by `case` and `lang`; lines naming no case of the corpus are an error.
pub fn score(cases: &[Case], trace: &Trace) -> Result<Score, String> {
    let known =
        |case: &str, lang: &str| cases.iter().any(|c| c.id == case) && LANGUAGES.contains(&lang);
    for (case, lang) in trace
        .calls
        .iter()
        .map(|c| (&c.case, &c.lang))
        .chain(trace.answers.iter().map(|a| (&a.case, &a.lang)))
    {
        if !known(case, lang) {
            return Err(format!(
                "the trace names no attempt of the corpus: {case} ({lang})"
            ));
        }
    }
    let mut attempts = Vec::new();
    for lang in LANGUAGES {
        for case in cases {
            let calls: Vec<&Call> = trace
                .calls
                .iter()
                .filter(|c| c.case == case.id && c.lang == lang)
                .collect();
            let answer = trace
                .answers
                .iter()
                .rev()
                .find(|a| a.case == case.id && a.lang == lang);
            let errors = calls.iter().filter(|c| is_error(&c.result)).count();
            let expect = case.expect.clone().unwrap_or_default();
            let hits = |c: &&Call| {
                Some(c.tool.as_str()) == case.expected_tool.as_deref() && meets(&c.result, &expect)
            };
            let first_hit = calls.iter().position(hits);
            let repaired = first_hit.is_some_and(|hit| {
                calls[..hit]
                    .iter()
                    .any(|c| is_error(&c.result) && !meets(&c.result, &expect))
            });
            let why = match (&case.expected_tool, answer) {
                (_, None) => "no answer".to_string(),
                (None, Some(_)) if calls.is_empty() => String::new(),
                (None, Some(_)) => format!("{} call(s) where none was needed", calls.len()),
                (Some(tool), Some(answer)) => match first_hit {
                    None => format!("no {tool} call met the expectation"),
                    Some(_) => {
                        let told = expect.get("/status").and_then(Value::as_str) == Some("ok");
                        let shown: Vec<&str> = expect
                            .get("/stackDisplay")
                            .and_then(Value::as_array)
                            .filter(|_| told)
                            .map(|a| {
                                a.iter()
                                    .filter_map(Value::as_str)
                                    .flat_map(numbers_of)
                                    .collect()
                            })
                            .unwrap_or_default();
                        let missing: Vec<&str> = shown
                            .into_iter()
                            .filter(|s| !gives(&answer.text, s))
                            .collect();
                        if missing.is_empty() {
                            String::new()
                        } else {
                            format!("the answer does not give {}", missing.join(", "))
                        }
                    }
                },
            };
            let mut sources = case.prompts.get(lang).cloned().unwrap_or_default();
            // The question, and what the attempt's calls sent and got: the program restates
            // the question's numbers (`5%` as `5/100`).
            for c in &calls {
                sources.push('\n');
                sources.push_str(&c.arguments.to_string());
                sources.push('\n');
                sources.push_str(&c.result.to_string());
            }
            let unsourced = answer.map_or_else(Vec::new, |a| unsourced_numbers(&a.text, &sources));
            attempts.push(Attempt {
                case: case.id.clone(),
                lang: lang.to_string(),
                correct: why.is_empty(),
                calls: calls.len(),
                errors,
                repaired,
                why,
                unsourced,
            });
        }
    }
    Ok(Score {
        session: trace.session.clone(),
        correct: attempts.iter().filter(|a| a.correct).count(),
        total: attempts.len(),
        calls: attempts.iter().map(|a| a.calls).sum(),
        errors: attempts.iter().map(|a| a.errors).sum(),
        repairs: attempts.iter().filter(|a| a.repaired).count(),
        unsourced: attempts.iter().filter(|a| !a.unsourced.is_empty()).count(),
        attempts,
    })
}

/// The score as a table: one row per attempt, then the totals per language and overall.
pub fn table(score: &Score) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} · server {} · {}",
        score.session.date, score.session.server_version, score.session.agent
    );
    let _ = writeln!(
        out,
        "{:<32} {:<4} {:<8} {:>5} {:>6} {:>8}  why / numbers from neither question nor result",
        "case", "lang", "correct", "calls", "errors", "repaired"
    );
    for a in &score.attempts {
        let _ = writeln!(
            out,
            "{:<32} {:<4} {:<8} {:>5} {:>6} {:>8}  {}",
            a.case,
            a.lang,
            if a.correct { "yes" } else { "NO" },
            a.calls,
            a.errors,
            if a.repaired { "yes" } else { "" },
            [
                a.why.clone(),
                if a.unsourced.is_empty() {
                    String::new()
                } else {
                    format!("unsourced: {}", a.unsourced.join(", "))
                }
            ]
            .iter()
            .filter(|t| !t.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join("; ")
        );
    }
    for lang in LANGUAGES {
        let of: Vec<&Attempt> = score.attempts.iter().filter(|a| a.lang == lang).collect();
        let _ = writeln!(
            out,
            "{lang}: {}/{} correct, {} calls, {} errors, {} repairs",
            of.iter().filter(|a| a.correct).count(),
            of.len(),
            of.iter().map(|a| a.calls).sum::<usize>(),
            of.iter().map(|a| a.errors).sum::<usize>(),
            of.iter().filter(|a| a.repaired).count()
        );
    }
    let _ = writeln!(
        out,
        "overall: {}/{} correct, {} calls, {} errors, {} repairs; {} answers give numbers from neither question nor result",
        score.correct, score.total, score.calls, score.errors, score.repairs, score.unsourced
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_no_source_holds_are_found() {
        let sources = "Add 0.1 and 0.2. {\"stackDisplay\":[\"3/10\",\"120/1\"]}";
        assert_eq!(
            unsourced_numbers("It is 3/10, about 0.3; and 120.", sources),
            ["0.3"]
        );
        assert!(unsourced_numbers("0.1 + 0.2 = 3/10", sources).is_empty());
        assert_eq!(
            unsourced_numbers("IEEE-754 says 0.30000000000000004", sources),
            ["754", "0.30000000000000004"]
        );
    }

    #[test]
    fn numbers_are_read_from_displays_and_found_in_answers() {
        assert_eq!(numbers_of("[ 2/1 -4/3 'a' TRUE ]"), ["2/1", "-4/3"]);
        assert_eq!(numbers_of("2/1*sqrt(2)"), ["2/1*sqrt(2)"]);
        assert!(numbers_of("TRUE").is_empty());
        assert!(gives("There are 120 ways", "120/1"));
        assert!(gives("120/1 ways", "120/1"));
        assert!(!gives("1120 ways", "120/1"));
        assert!(!gives("120/7", "120/1"));
        assert!(!gives("It is 1/3", "3/1"));
        assert!(gives("答えは 3/10 です", "3/10"));
        assert!(!gives("-5", "5/1"));
        assert!(gives("-5", "-5/1"));
    }
}
