//! `ajisai`: the human CLI (MCP-94; README.md). See `ajisai --help`.

use ajisai_numerics_gmp::BackendFault;
use ajisai_server::cli::{self, Exit, Io};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use ajisai_host::ENGINE_STACK_BYTES;

/// Every allocation is charged to the execution that made it (`memoryBytes`).
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

fn main() -> ExitCode {
    // GMP allocates through the counting allocator from its first block on.
    ajisai_numerics_gmp::route_allocations();
    ajisai_host::memory::install();
    ajisai_host::reaper::install();
    // A fault of a loaded numeric plugin unwinds the engine thread with a
    // `BackendFault`; it is reported below as one line, not as a panic.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if BackendFault::from_panic(info.payload()).is_none() {
            default_hook(info)
        }
    }));
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let worker = std::thread::Builder::new()
        .name("ajisai-engine".into())
        .stack_size(ENGINE_STACK_BYTES)
        .spawn(move || {
            let stdin = std::io::stdin();
            let interactive = stdin.is_terminal();
            let mut stdin = stdin.lock();
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            let mut stderr = std::io::stderr().lock();
            let mut io = Io {
                stdin: &mut stdin,
                stdout: &mut stdout,
                stderr: &mut stderr,
                interactive,
            };
            let exit = cli::main(&args, &mut io);
            if stdout.flush().is_err() && exit != Exit::Usage {
                return Exit::Usage;
            }
            exit
        });
    let exit = match worker.map(|w| w.join()) {
        Ok(Ok(exit)) => exit.code(),
        Ok(Err(payload)) => match BackendFault::from_panic(payload.as_ref()) {
            // A host-side failure like an I/O error: exit 2 with one line.
            Some(fault) => {
                eprintln!("ajisai: {fault}");
                2
            }
            None => {
                // The panic message has been printed by the panic hook already.
                eprintln!("ajisai: internal error: the engine thread panicked (this is a bug; please report it)");
                101
            }
        },
        Err(e) => {
            eprintln!("ajisai: cannot start the engine thread: {e}");
            2
        }
    };
    ExitCode::from(exit)
}
