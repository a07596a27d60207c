//! `eval-score TRACE…`: score evaluation traces against `eval/cases.json` and print a
//! table per trace (eval/README.md). `--json` prints the scores as JSON instead. Exit 1
//! when a trace cannot be read or names no attempt of the corpus.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let traces: Vec<&String> = args.iter().filter(|a| *a != "--json").collect();
    if traces.is_empty() {
        eprintln!("usage: eval-score [--json] TRACE.jsonl…");
        return ExitCode::from(2);
    }
    let corpus_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../eval/cases.json");
    let cases = match std::fs::read_to_string(corpus_path)
        .map_err(|e| format!("{corpus_path}: {e}"))
        .and_then(|t| ajisai_golden::eval::corpus(&t))
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("eval-score: {e}");
            return ExitCode::FAILURE;
        }
    };
    for path in traces {
        let scored = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| ajisai_golden::eval::trace(&t))
            .and_then(|t| ajisai_golden::eval::score(&cases, &t));
        match scored {
            Ok(score) if json => match serde_json::to_string_pretty(&score) {
                Ok(text) => println!("{text}"),
                Err(e) => {
                    eprintln!("eval-score: {path}: {e}");
                    return ExitCode::FAILURE;
                }
            },
            Ok(score) => print!("{path}\n{}", ajisai_golden::eval::table(&score)),
            Err(e) => {
                eprintln!("eval-score: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
