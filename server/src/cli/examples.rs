//! `ajisai test <FILE|DIR>`: run `#:example <source> => <display>` lines (MCP-94 (README.md),
//! syntax of MCP-76; docs/phrasebook.md).
//!
//! Each file is first run once as a program (its directives are comments, so a
//! phrasebook-shaped file just defines its Words); every example then runs as a fresh
//! program that starts with the User Words the file defined, and its `stackDisplay`
//! entries joined by single spaces must equal the expected text. An expectation of
//! the form `error:<category>` expects that error instead (a display never starts
//! with `error:`, so the two cannot be confused).

use super::source::{read_file, ReadError};
use super::{Exit, Io};
use ajisai_core::display::{display_lower_bound, display_polled};
use ajisai_core::envelope::one_line;
use ajisai_core::lexer;
use ajisai_core::machine::Dictionary;
pub use ajisai_core::phrasebook::Example;
use ajisai_core::{Halt, Machine, Profile};
use ajisai_host::bounded::Bounded;
use std::io;
use std::path::{Path, PathBuf};

/// The `#:example` lines of one file.
#[derive(Debug, Default)]
struct Found {
    /// Well-formed examples.
    examples: Vec<Example>,
    /// Lines of malformed `#:example` directives.
    malformed: Vec<u32>,
}

/// The `#:example` lines of a source; `Err` when the file does not even tokenize.
fn collect(text: &str) -> Result<Found, String> {
    let lexed =
        lexer::lex(text, 0).map_err(|e| format!("does not tokenize: {}", one_line(&e.message)))?;
    let mut found = Found::default();
    for d in &lexed.directives {
        let Some(rest) = d.text.strip_prefix("example") else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            continue;
        }
        match Example::parse(rest, d.line) {
            Ok(example) => found.examples.push(example),
            Err(_) => found.malformed.push(d.line),
        }
    }
    Ok(found)
}

/// The Words the file defines, by running it once as a program.
fn definitions(text: &str, profile: &Profile) -> Result<Dictionary, String> {
    let mut m = Machine::new(profile.clone(), ajisai_core::word::registry());
    let mut result = m.run_source(text);
    ajisai_core::suggest::complete_halt(&mut result, m.dictionary());
    match result {
        Ok(()) => Ok(m.dictionary().clone()),
        Err(Halt::Error(e)) => {
            let at = e
                .pos
                .map(|p| format!(" at line {}, column {}", p.line, p.column))
                .unwrap_or_default();
            Err(format!(
                "the file itself fails{at}: {}: {}",
                e.category.id(),
                one_line(&e.message)
            ))
        }
        Err(Halt::Interrupted(_)) => Err("the file itself was interrupted".to_string()),
    }
}

/// Run one example; `None` when it holds, else what it produced.
pub fn check_example(ex: &Example, dict: &Dictionary, profile: &Profile) -> Option<String> {
    // Each example is one execution under `memoryBytes`.
    let bounded = Bounded::begin(profile);
    let got = run_example(ex, dict, profile, &bounded);
    match bounded.finish() {
        Some(e) => Some(format!("hostError:{} ({})", e.code.id(), e.message)),
        None => got,
    }
}

fn run_example(
    ex: &Example,
    dict: &Dictionary,
    profile: &Profile,
    bounded: &Bounded,
) -> Option<String> {
    let mut m = Machine::new(profile.clone(), ajisai_core::word::registry());
    m.meter_mut().set_interrupt(bounded.flag());
    *m.dictionary_mut() = dict.clone();
    let mut result = m.run_source(&ex.source);
    ajisai_core::suggest::complete_halt(&mut result, m.dictionary());
    let got = match result {
        Ok(()) => {
            let mut shown = Vec::with_capacity(m.stack().len());
            for v in m.stack() {
                match slot_display(v, bounded) {
                    Ok(s) => shown.push(s),
                    Err(_) => return Some("an interrupted run".to_string()),
                }
            }
            shown.join(" ")
        }
        Err(Halt::Error(e)) => {
            let id = e.outcome_id();
            if ex.expect == id {
                return None;
            }
            return Some(format!("{id} ({})", one_line(&e.message)));
        }
        Err(Halt::Interrupted(_)) => return Some("an interrupted run".to_string()),
    };
    if got == ex.expect {
        None
    } else {
        Some(got)
    }
}

/// The display of a slot, refused or stopped when memory runs out.
fn slot_display(v: &ajisai_core::value::Value, bounded: &Bounded) -> Result<String, Halt> {
    if !bounded.admits(display_lower_bound(v)) {
        return Err(Halt::Interrupted(ajisai_core::limits::Interrupt::Raised));
    }
    display_polled(v, &mut |_| bounded.poll())
}

/// Every `*.ajisai` file under `dir`, sorted by path.
fn ajisai_files(dir: &Path) -> Result<Vec<PathBuf>, ReadError> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| ReadError(format!("cannot read '{}': {e}", d.display())))?;
        for entry in entries {
            let entry =
                entry.map_err(|e| ReadError(format!("cannot read '{}': {e}", d.display())))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| ReadError(format!("cannot read '{}': {e}", path.display())))?;
            if kind.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "ajisai") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The files a `test` operand names, each with its text, all read before anything runs
/// (an I/O error must leave stdout empty).
fn read_all(target: &Path) -> Result<Vec<(PathBuf, String)>, ReadError> {
    let files = if target.is_dir() {
        ajisai_files(target)?
    } else {
        vec![target.to_path_buf()]
    };
    files
        .into_iter()
        .map(|f| read_file(&f).map(|t| (f, t)))
        .collect()
}

/// `ajisai test <FILE|DIR>`: one line per failure on stdout, a summary on stderr.
pub fn run(target: &Path, profile: &Profile, io: &mut Io<'_>) -> io::Result<Exit> {
    let files = match read_all(target) {
        Ok(f) => f,
        Err(e) => {
            writeln!(io.stderr, "ajisai: {}", e.0)?;
            return Ok(Exit::Usage);
        }
    };
    let (mut total, mut failed) = (0usize, 0usize);
    for (path, text) in &files {
        let name = path.display();
        let Found {
            examples,
            malformed,
        } = match collect(text) {
            Ok(found) => found,
            Err(why) => {
                writeln!(io.stdout, "{name}: {why}")?;
                failed += 1;
                total += 1;
                continue;
            }
        };
        for line in &malformed {
            writeln!(io.stdout, "{name}:{line}: malformed #:example line (expected '#:example <source> => <display>')")?;
        }
        total += examples.len() + malformed.len();
        failed += malformed.len();
        if examples.is_empty() {
            continue;
        }
        let dict = match definitions(text, profile) {
            Ok(d) => d,
            Err(why) => {
                writeln!(
                    io.stdout,
                    "{name}: {why} ({} example(s) not run)",
                    examples.len()
                )?;
                failed += examples.len();
                continue;
            }
        };
        for ex in &examples {
            if let Some(got) = check_example(ex, &dict, profile) {
                failed += 1;
                writeln!(
                    io.stdout,
                    "{name}:{}: {} => expected {}, got {}",
                    ex.line, ex.source, ex.expect, got
                )?;
            }
        }
    }
    if total == 0 {
        writeln!(
            io.stderr,
            "no #:example lines found in {}",
            target.display()
        )?;
    } else {
        writeln!(
            io.stderr,
            "{} passed, {failed} failed ({} file(s))",
            total - failed,
            files.len()
        )?;
    }
    super::flush(io)?;
    Ok(if failed == 0 { Exit::Ok } else { Exit::Failure })
}
