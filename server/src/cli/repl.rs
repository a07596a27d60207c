//! `ajisai repl`: each stdin line continues one program (MCP-94; README.md).
//!
//! Stack, dictionary and bindings persist between lines, and so do the meters: the
//! session is one program under one profile, whose lines are numbered across the session
//! (an error on the sixth line says line 6; one inside a User Word, the line it was
//! written on). After an error the state is what
//! docs/reference/errors.md#the-stack-after-an-error leaves, and the session goes on. After each
//! line the REPL prints the new output lines, any error, then the stack (`bottom | … | top`,
//! `(empty)`).

use super::report::{error_line, host_error_line, shown_slots, slot_line_bounded};
use super::{Exit, Io};
use ajisai_core::{Halt, Machine, Profile};
use ajisai_host::bounded::Bounded;
use ajisai_host::hosterror::HostError;
use std::io;

/// The stack as one line: slots bottom to top joined by ` | `, or `(empty)`; at most
/// the top [`super::report::SHOWN_SLOTS`] slots, after a count of those left out.
/// `Err` when memory ran out while writing it.
fn stack_line_bounded(m: &Machine, bounded: &Bounded) -> Result<String, Halt> {
    let (left_out, shown) = shown_slots(m.stack());
    let mut parts: Vec<String> = Vec::with_capacity(shown.len() + 1);
    if left_out > 0 {
        parts.push(format!("... {left_out} slots not shown"));
    }
    for v in shown {
        parts.push(slot_line_bounded(v, bounded)?);
    }
    Ok(ajisai_core::display::join_slots(parts))
}

/// Read lines until end of input; exit 0 at its end, 2 when stdin cannot be read as UTF-8.
pub fn run(profile: &Profile, io: &mut Io<'_>) -> io::Result<Exit> {
    // The whole session is one execution under `memoryBytes`.
    let bounded = Bounded::begin(profile);
    let mut machine = Machine::new(profile.clone(), ajisai_core::word::registry());
    machine.meter_mut().set_interrupt(bounded.flag());
    let mut shown_output = 0usize;
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    loop {
        if io.interactive {
            write!(io.stdout, "> ")?;
            io.stdout.flush()?;
        }
        buf.clear();
        let n = match io.stdin.read_until(b'\n', &mut buf) {
            Ok(n) => n,
            Err(e) => {
                writeln!(io.stderr, "ajisai: cannot read <stdin>: {e}")?;
                return Ok(Exit::Usage);
            }
        };
        if n == 0 {
            break;
        }
        line_no += 1;
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        let text = match std::str::from_utf8(&buf) {
            Ok(t) => t,
            Err(e) => {
                writeln!(
                    io.stderr,
                    "ajisai: <stdin> line {line_no} is not valid UTF-8 (invalid byte at offset {})",
                    e.valid_up_to()
                )?;
                return Ok(Exit::Usage);
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        // Positions count lines across the session, as a file would.
        let first_line = u32::try_from(line_no).unwrap_or(u32::MAX);
        let mut result = machine.run_source_from(text, first_line);
        ajisai_core::suggest::complete_halt(&mut result, machine.dictionary());
        for line in &machine.output()[shown_output..] {
            writeln!(io.stdout, "{line}")?;
        }
        shown_output = machine.output().len();
        let line = match result {
            Ok(()) => stack_line_bounded(&machine, &bounded).ok(),
            Err(Halt::Error(e)) => {
                io.stdout.write_all(error_line(&e).as_bytes())?;
                stack_line_bounded(&machine, &bounded).ok()
            }
            Err(Halt::Interrupted(_)) => None,
        };
        match (line, bounded.exhausted()) {
            (Some(line), None) => writeln!(io.stdout, "{line}")?,
            (_, exhausted) => {
                // The session crossed its memory ceiling: it ends here.
                let error = exhausted
                    .unwrap_or_else(|| HostError::backend_failure("the session was interrupted"));
                drop(machine);
                drop(bounded);
                io.stderr.write_all(host_error_line(&error).as_bytes())?;
                super::flush(io)?;
                return Ok(Exit::Failure);
            }
        }
    }
    if io.interactive {
        writeln!(io.stdout)?;
    }
    super::flush(io)?;
    Ok(Exit::Ok)
}
