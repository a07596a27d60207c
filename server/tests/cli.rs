//! The built `ajisai` binary over real stdin/stdout: every command, every exit code,
//! the `--json` envelope's shape and key order, usage and I/O errors.

use crate::cli_support;

use cli_support::Outcome;
use serde_json::Value as Json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `ajisai` with UTF-8 environment values.
fn ajisai_env(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Outcome {
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_ref())).collect();
    cli_support::ajisai_env(args, stdin, &env)
}

fn ajisai(args: &[&str], stdin: &str) -> Outcome {
    ajisai_env(args, stdin.as_bytes(), &[])
}

/// A fresh scratch directory under the target's test temp dir.
fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "cli-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn write(dir: &std::path::Path, name: &str, text: &[u8]) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("parent dir");
    }
    std::fs::write(&path, text).expect("write file");
    path.to_string_lossy().into_owned()
}

fn keys(doc: &Json) -> Vec<String> {
    doc.as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect()
}

fn one_json(out: &Outcome) -> Json {
    assert!(
        out.stdout.ends_with('\n') && out.stdout.matches('\n').count() == 1,
        "one line: {:?}",
        out.stdout
    );
    serde_json::from_str(&out.stdout).expect("stdout is one JSON document")
}

// ---- run ----

#[test]
fn run_reads_stdin_and_prints_the_stack_bottom_to_top() {
    let out = ajisai(&["run", "-"], "TRUE FALSE");
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "TRUE\nFALSE\n", "")
    );
}

#[test]
fn run_reads_a_file_and_prints_output_lines_first() {
    let dir = scratch();
    let file = write(&dir, "hello.ajisai", b"# greet\n'hello' PRINT\nTRUE\n");
    let out = ajisai(&["run", &file], "");
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "hello\nTRUE\n", "")
    );
}

#[test]
fn a_report_for_people_shows_the_top_1000_slots_and_counts_the_rest() {
    // `{ 1 F }` pushes one slot per call until the steps run out (12,000,001 of them in
    // cli-local would take long; the mcp profile stops at 100,000).
    let out = ajisai(&["run", "--profile", "mcp", "-"], "{ 1 F } 'F' DEF F");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 1001);
    assert_eq!(
        lines[0],
        "... 98999 slots not shown (the top 1000 of 99999 follow; --json has them all)"
    );
    assert!(lines[1..].iter().all(|l| *l == "1/1"));
    assert!(out
        .stderr
        .contains("executionSteps of 100001 exceeds the limit of 100000"));
    // Exactly 1,000 slots: nothing is left out.
    let thousand: String = (1..=1000).map(|i| format!("{i} ")).collect();
    let out = ajisai(&["run", "-"], &thousand);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!((out.code, lines.len(), lines[0]), (0, 1000, "1/1"));
    // The repl shows the same top slots on its one line.
    let out = ajisai(&["repl", "--profile", "mcp"], &format!("{thousand}1001\n"));
    let last = out.stdout.lines().last().unwrap_or_default().to_string();
    assert!(
        last.starts_with("... 1 slots not shown | 2/1 | 3/1"),
        "{last}"
    );
    assert!(last.ends_with("| 1001/1"), "{last}");
}

/// The CLI applies `memoryBytes` (1 GiB in cli-local): a run that needs more exits 1
/// with the host error `memoryExhausted` — one line without `--json`, the envelope with
/// it — never a signal or an abort.
#[test]
fn a_run_that_needs_more_memory_than_its_ceiling_exits_1_with_memory_exhausted() {
    // Pushes a 1,000-element Vector per call: 12 million steps would need 384 GB.
    let bomb = "{ 0 999 RANGE F } 'F' DEF F";
    let out = ajisai(&["run", "-"], bomb);
    assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{}", out.stderr);
    // F is tens of thousands of calls deep when the ceiling stops it: the message says so.
    let (said, recursion) = out
        .stderr
        .split_once(" F was ")
        .unwrap_or_else(|| panic!("{}", out.stderr));
    assert_eq!(
        said,
        "ajisai: memoryExhausted: Execution needed more than the 1073741824-byte memory limit (memoryBytes)."
    );
    assert!(
        recursion.contains(" User Word calls deep: a recursion that never reaches its base case; hint: a recursive Word needs a base case")
            && recursion.ends_with(")\n"),
        "{recursion}"
    );
    let out = ajisai(&["run", "--json", "--profile", "mcp", "-"], bomb);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = one_json(&out);
    assert_eq!(
        keys(&doc),
        [
            "schemaVersion",
            "status",
            "error",
            "limitProfile",
            "backend"
        ]
    );
    assert_eq!(doc["schemaVersion"], ajisai_core::envelope::SCHEMA_VERSION);
    assert_eq!(doc["status"], "hostError");
    assert_eq!(
        doc["error"],
        serde_json::json!({
            "code": "memoryExhausted",
            "message": "Execution needed more than the 67108864-byte memory limit (memoryBytes); build smaller values or keep fewer of them.",
            "retryable": false,
            "limit": "memoryBytes"
        })
    );
    assert_eq!(doc["limitProfile"], "mcp-local-stdio");
    // A display no ceiling could hold is refused before it is written.
    let shared = format!(
        "{{ 'V' BIND [ 1 1 ] {{ V }} MAP }} 'D' DEF [ 1 ]{}",
        " D".repeat(40)
    );
    let out = ajisai(&["run", "-"], &shared);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("ajisai: memoryExhausted: "),
        "{}",
        out.stderr
    );
    let out = ajisai(&["run", "--json", "-"], &shared);
    assert_eq!(one_json(&out)["error"]["code"], "memoryExhausted");
    // A repl session is one execution: it ends when it runs out.
    let out = ajisai(&["repl"], "1 2 +\n{ 0 999 RANGE F } 'F' DEF F\n3\n");
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout.lines().next(), Some("3/1"));
    assert!(
        out.stderr.starts_with("ajisai: memoryExhausted: "),
        "{}",
        out.stderr
    );
    // A test example is one execution too.
    let dir = scratch();
    let file = write(
        &dir,
        "bomb.ajisai",
        format!("#:example {bomb} => 1/1\n#:example 1 2 + => 3/1\n").as_bytes(),
    );
    let out = ajisai(&["test", &file], "");
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("got hostError:memoryExhausted"),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("1 passed, 1 failed"), "{}", out.stderr);
}

#[test]
fn a_nil_result_is_success_with_its_reason_shown() {
    let out = ajisai(&["run", "-"], "NIL");
    assert_eq!((out.code, out.stdout.as_str()), (0, "NIL (nil:literal)\n"));
}

#[test]
fn a_language_error_exits_1_with_position_on_stderr() {
    let out = ajisai(&["run", "-"], "TRUE\n1 NOT");
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "TRUE\n1/1\n", "the stack as the error left it");
    assert!(
        out.stderr
            .starts_with("error at line 2, column 3: typeMismatch: "),
        "{}",
        out.stderr
    );
}

#[test]
fn an_error_inside_user_words_prints_its_calls_under_the_error_line() {
    let out = ajisai(
        &["run", "-"],
        "{ 1 0 UNKNOWNX } 'G' DEF\n{ G } 'F' DEF\n1 F",
    );
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "error at line 1, column 7: unknownWord: Unknown word: UNKNOWNX\n  \
         in G, called at line 2, column 3\n  in F, called at line 3, column 3\n"
    );
    let doc = one_json(&ajisai(
        &["run", "-", "--json"],
        "{ 1 0 UNKNOWNX } 'G' DEF\n{ G } 'F' DEF\n1 F",
    ));
    assert_eq!(
        doc["error"]["trace"],
        serde_json::json!([
            { "word": "G", "line": 2, "column": 3 },
            { "word": "F", "line": 3, "column": 3 }
        ])
    );
}

#[test]
fn a_deep_recursion_prints_the_innermost_calls_then_the_count_then_the_first() {
    let out = ajisai(
        &["run", "-"],
        "{ { 0 > | 1 - F 1 + } { IDLE | FOO } COND } 'F' DEF\n20 F",
    );
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 10, "{}", out.stderr);
    assert!(lines[1..8]
        .iter()
        .all(|l| *l == "  in F, called at line 1, column 15"));
    assert_eq!(lines[8], "  ... 13 more calls");
    assert_eq!(lines[9], "  in F, called at line 2, column 4");
}

#[test]
fn an_error_at_top_level_prints_no_trace() {
    let out = ajisai(&["run", "-"], "{ 1 } 'F' DEF F 'a' +");
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

#[test]
fn check_warns_of_a_trap_and_still_passes() {
    let out = ajisai(&["check", "-"], "2 10 ^ 1 -");
    assert_eq!(out.code, 0, "a warning never fails a check");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    assert!(lines[0].starts_with("ok: "), "{}", lines[0]);
    assert!(
        lines[1].starts_with("warning at line 1, column 6: `10 ^` is VENT right after a number")
            && lines[1].contains("; hint: ")
            && lines[1].contains("POW"),
        "{}",
        lines[1]
    );
    let doc = one_json(&ajisai(&["check", "-", "--json"], "2 10 ^ 1 -"));
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["findings"][0]["severity"], "warning");
    assert_eq!(doc["findings"][0]["trap"], "ventAfterNumber");
    let many = "1 ^ 2 ".repeat(10);
    let out = ajisai(&["check", "-"], &many);
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout
            .lines()
            .filter(|l| l.starts_with("warning"))
            .count(),
        8
    );
    assert!(
        out.stdout.ends_with("... 2 more warnings like these\n"),
        "{}",
        out.stdout
    );
    // `run` runs the program as written.
    let out = ajisai(&["run", "-"], "2 10 ^ 1 -");
    assert_eq!((out.code, out.stdout.as_str()), (0, "-8/1\n"));
}

#[test]
fn run_json_is_one_envelope_with_host_fields_last() {
    let out = ajisai(&["run", "-", "--json"], "'hi' PRINT TRUE NIL");
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    let doc = one_json(&out);
    assert_eq!(
        keys(&doc),
        [
            "schemaVersion",
            "status",
            "outcome",
            "specificationVersion",
            "stack",
            "stackDisplay",
            "output",
            "resourceUsage",
            "limitProfile",
            "backend"
        ]
    );
    assert_eq!(doc["schemaVersion"], ajisai_core::envelope::SCHEMA_VERSION);
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["outcome"], "nil:literal");
    assert_eq!(
        doc["specificationVersion"],
        ajisai_core::SPECIFICATION_VERSION
    );
    assert_eq!(doc["stackDisplay"], serde_json::json!(["TRUE", "NIL"]));
    assert_eq!(doc["output"], serde_json::json!(["hi"]));
    assert_eq!(doc["stack"][1]["semantics"]["absence"]["reason"], "literal");
    assert_eq!(doc["limitProfile"], "cli-local");
    assert_eq!(keys(&doc["backend"]), ["kind", "library", "origin"]);
    let auto = if ajisai_host::backend::GMP_BUILTIN {
        "gmp"
    } else {
        "pure"
    };
    assert_eq!(doc["backend"]["kind"], auto);
    assert_eq!(doc["backend"]["origin"], "builtin");
    assert!(
        doc.get("mcp").is_none()
            && doc.get("prelude").is_none()
            && doc.get("stackElided").is_none()
    );
}

#[test]
fn run_json_error_carries_message_and_error_before_usage() {
    let out = ajisai(&["run", "--json", "-"], "TRUE FOO");
    assert_eq!((out.code, out.stderr.as_str()), (1, ""));
    let doc = one_json(&out);
    assert_eq!(
        keys(&doc),
        [
            "schemaVersion",
            "status",
            "outcome",
            "specificationVersion",
            "stack",
            "stackDisplay",
            "output",
            "message",
            "error",
            "resourceUsage",
            "limitProfile",
            "backend"
        ]
    );
    assert_eq!(doc["status"], "error");
    assert_eq!(doc["outcome"], "error:unknownWord");
    assert_eq!(
        doc["error"],
        serde_json::json!({"category": "unknownWord", "word": "FOO", "line": 1, "column": 6})
    );
    assert_eq!(doc["stackDisplay"], serde_json::json!(["TRUE"]));
}

#[test]
fn profile_mcp_applies_the_mcp_limits_and_is_published() {
    let spaces = " ".repeat(65_537);
    let mcp = ajisai(&["run", "-", "--json", "--profile", "mcp"], &spaces);
    assert_eq!(mcp.code, 1);
    let doc = one_json(&mcp);
    assert_eq!(doc["limitProfile"], "mcp-local-stdio");
    assert_eq!(doc["error"]["category"], "resourceLimitExceeded");
    assert_eq!(doc["error"]["resource"], "sourceBytes");
    assert_eq!(
        doc["message"],
        "sourceBytes of 65537 exceeds the limit of 65536"
    );
    let cli = ajisai(&["run", "-", "--json", "--profile=cli"], &spaces);
    assert_eq!(cli.code, 0);
    assert_eq!(one_json(&cli)["limitProfile"], "cli-local");
}

#[test]
fn the_engine_runs_on_a_large_stack() {
    // 256 nested vector literals (cli-local's nestingDepth) are built and displayed;
    // 1,000 are refused by the limit's name, never by a crash.
    let deep = format!("{}1{}", "[ ".repeat(256), " ]".repeat(256));
    let ok = ajisai(&["run", "-"], &deep);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(
        ok.stdout.trim_end() == deep.replace(" 1 ", " 1/1 "),
        "256 nested vectors display back"
    );
    let over = format!("{}1{}", "[ ".repeat(1000), " ]".repeat(1000));
    let refused = ajisai(&["run", "-"], &over);
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("nestingDepth of 1000 exceeds the limit of 256"),
        "{}",
        refused.stderr
    );
}

// ---- check ----

#[test]
fn check_is_stricter_than_run() {
    let src = "{ FOO } 'BAR' DEF TRUE";
    let run = ajisai(&["run", "-"], src);
    assert_eq!((run.code, run.stdout.as_str()), (0, "TRUE\n"));
    let check = ajisai(&["check", "-"], src);
    assert_eq!((check.code, check.stdout.as_str()), (1, ""));
    assert!(
        check
            .stderr
            .starts_with("error at line 1, column 3: unknownWord: Unknown words: FOO"),
        "{}",
        check.stderr
    );
    let json = ajisai(&["check", "-", "--json"], src);
    assert_eq!(json.code, 1);
    let doc = one_json(&json);
    assert_eq!(
        keys(&doc),
        [
            "schemaVersion",
            "status",
            "specificationVersion",
            "message",
            "error",
            "limitProfile",
            "backend"
        ]
    );
    assert_eq!(doc["error"]["word"], "FOO");
}

#[test]
fn check_ok_executes_nothing() {
    let out = ajisai(&["check", "-"], "'never' PRINT");
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("ok"), "{}", out.stdout);
    assert!(!out.stdout.contains("never"));
    let doc = one_json(&ajisai(
        &["check", "-", "--json", "--profile", "mcp"],
        "TRUE",
    ));
    assert_eq!(
        keys(&doc),
        [
            "schemaVersion",
            "status",
            "specificationVersion",
            "limitProfile",
            "backend"
        ]
    );
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["limitProfile"], "mcp-local-stdio");
}

#[test]
fn check_verifies_contract_directives() {
    let ok = ajisai(
        &["check", "-"],
        "#:contract FLIP inputs=1 outputs=1\n{ NOT } 'FLIP' DEF",
    );
    assert_eq!(
        (ok.code, ok.stdout.lines().count()),
        (0, 1),
        "{}",
        ok.stdout
    );
    let note = ajisai(&["check", "-"], "#:contract V inputs=1\n{ ^ 0 } 'V' DEF");
    assert_eq!(note.code, 0);
    assert!(
        note.stdout.contains("note at line 1: #:contract"),
        "{}",
        note.stdout
    );
    let bad = ajisai(
        &["check", "-"],
        "#:contract FLIP inputs=2\n{ NOT } 'FLIP' DEF",
    );
    assert_eq!(bad.code, 1);
    assert!(
        bad.stderr.contains("contractViolation: contract violation: #:contract FLIP declares inputs=2, inferred inputs=1"),
        "{}",
        bad.stderr
    );
    let run = ajisai(
        &["run", "-", "--json"],
        "#:contract FLIP inputs=2\n'ran' PRINT { NOT } 'FLIP' DEF",
    );
    assert_eq!(run.code, 1);
    let doc = one_json(&run);
    assert_eq!(doc["outcome"], "error:contractViolation");
    assert_eq!(
        doc["output"],
        serde_json::json!([]),
        "nothing runs before a violated declaration"
    );
}

#[test]
fn check_reports_malformed_source() {
    let out = ajisai(&["check", "-"], "[ 1 2");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("malformedSource"), "{}", out.stderr);
}

// ---- contract ----

#[test]
fn contract_prints_paste_ready_directives_and_gaps() {
    let out = ajisai(&["contract", "-"], "{ NOT } 'FLIP' DEF\n{ FOO } 'BAR' DEF");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "#:contract FLIP inputs=1 outputs=1 field=closed\n#:contract BAR field=closed  # gap.unresolvedWord\n"
    );
}

#[test]
fn contract_json_is_the_infer_contracts_envelope() {
    let out = ajisai(
        &["contract", "-", "--json", "--profile", "mcp"],
        "{ NOT } 'FLIP' DEF",
    );
    assert_eq!(out.code, 0);
    let doc = one_json(&out);
    assert_eq!(
        keys(&doc),
        [
            "schemaVersion",
            "status",
            "specificationVersion",
            "contracts",
            "limitProfile",
            "backend"
        ]
    );
    assert_eq!(
        doc["contracts"][0]["suggested"],
        "#:contract FLIP inputs=1 outputs=1 field=closed"
    );
    assert_eq!(doc["limitProfile"], "mcp-local-stdio");
}

#[test]
fn contract_on_malformed_source_exits_1() {
    let out = ajisai(&["contract", "-"], "{ NOT 'FLIP' DEF");
    assert_eq!((out.code, out.stdout.as_str()), (1, ""));
    assert!(out.stderr.contains("malformedSource"), "{}", out.stderr);
    let json = one_json(&ajisai(&["contract", "-", "--json"], "{ NOT 'FLIP' DEF"));
    assert_eq!(json["error"]["category"], "malformedSource");
}

// ---- version, help ----

#[test]
fn version_names_engine_specification_numerics_and_profile() {
    let out = ajisai(&["--version"], "");
    assert_eq!(out.code, 0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    assert_eq!(lines[0], format!("ajisai {}", ajisai_core::ENGINE_VERSION));
    assert_eq!(
        lines[1],
        format!("specification: {}", ajisai_core::SPECIFICATION_VERSION)
    );
    let auto = if ajisai_host::backend::GMP_BUILTIN {
        "numerics: gmp (GMP "
    } else {
        "numerics: pure (num-bigint "
    };
    assert!(
        lines[2].starts_with(auto) && lines[2].ends_with(", builtin)"),
        "{}",
        lines[2]
    );
    assert_eq!(lines[3], "profile: cli-local");
}

#[test]
fn help_prints_usage_and_exits_0() {
    for args in [&["--help"][..], &["-h"]] {
        let out = ajisai(args, "");
        assert_eq!(out.code, 0);
        assert!(
            out.stdout.contains("Usage: ajisai [COMMAND]"),
            "{}",
            out.stdout
        );
        for command in [
            "run",
            "check",
            "contract",
            "test",
            "repl",
            "words",
            "doc",
            "completions",
        ] {
            assert!(
                out.stdout.contains(&format!("\n  {command} ")),
                "{command}: {}",
                out.stdout
            );
        }
        assert!(out.stdout.contains("Exit codes"));
        // Only true things: output lines, then the stack, on stdout; errors on stderr.
        assert!(
            out.stdout
                .contains("Its output lines (PRINT), then its stack from bottom to top, go to stdout; an error goes to stderr"),
            "{}",
            out.stdout
        );
        assert_eq!(out.stderr, "");
    }
    let out = ajisai(&["run", "--help"], "");
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains("Usage: ajisai run [OPTIONS] <FILE|->"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("--profile <cli|mcp>"), "{}", out.stdout);
}

/// What `--help` says of `run` is what it does: output lines and then the stack on
/// stdout, the error on stderr.
#[test]
fn run_writes_output_then_stack_to_stdout_and_the_error_to_stderr() {
    let out = ajisai(&["run", "-"], "1 'x' PRINT 2 NOPE");
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "x\n1/1\n2/1\n");
    assert!(
        out.stderr
            .starts_with("error at line 1, column 15: unknownWord"),
        "{}",
        out.stderr
    );
}

// ---- usage and I/O errors ----

#[test]
fn usage_errors_exit_2_naming_the_argument_with_usage_and_empty_stdout() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "a command is needed"),
        (&["frobnicate"], "'frobnicate'"),
        (&["--frobnicate"], "'--frobnicate'"),
        (&["run"], "<FILE|->"),
        (&["run", "a.ajisai", "b.ajisai"], "'b.ajisai'"),
        (&["run", "-", "--jsn"], "'--jsn'"),
        (&["run", "-", "--profile"], "--profile"),
        (&["run", "-", "--profile", "turbo"], "'turbo'"),
        (&["check"], "<FILE|->"),
        (&["test"], "<FILE|DIR>"),
        (&["test", "x", "--json"], "'--json'"),
        (&["repl", "extra"], "'extra'"),
        (&["--version", "extra"], "'extra'"),
        (&["contract"], "<FILE|->"),
        (&["test", "-"], "not stdin"),
        (&["words", "arithmetic"], "unknown family 'arithmetic'"),
        (&["doc"], "<WORD>"),
        (&["completions", "cmd"], "'cmd'"),
    ];
    for (args, needle) in cases {
        let out = ajisai(args, "TRUE");
        assert_eq!(out.code, 2, "{args:?}");
        assert_eq!(out.stdout, "", "{args:?}");
        assert!(
            out.stderr.starts_with("error: "),
            "{args:?}: {}",
            out.stderr
        );
        assert!(out.stderr.contains(needle), "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("try '--help'"),
            "{args:?}: {}",
            out.stderr
        );
    }
}

/// `words` lists the registry by family, `doc` shows one Word (an unknown one exits 1
/// with near misses and hints), `completions` prints a shell's script.
#[test]
fn words_doc_and_completions() {
    let all = ajisai(&["words"], "");
    assert_eq!((all.code, all.stderr.as_str()), (0, ""));
    assert!(all.stdout.starts_with("booleanLogic:\n"), "{}", all.stdout);
    assert!(
        all.stdout.contains("\nexactArithmetic:\n  ABS "),
        "{}",
        all.stdout
    );
    let one = ajisai(&["words", "Comparison"], "");
    assert_eq!(one.code, 0);
    assert!(
        one.stdout.starts_with("comparison:\n  EQ (=) "),
        "{}",
        one.stdout
    );
    assert!(!one.stdout.contains("ADD"));
    let doc = ajisai(&["doc", "map"], "");
    assert_eq!(doc.code, 0, "{}", doc.stderr);
    assert!(
        doc.stdout.starts_with("MAP — higherOrder"),
        "{}",
        doc.stdout
    );
    assert!(
        doc.stdout
            .contains("\nexamples:\n  [ 1 2 3 ] { 2 * } MAP  →  [ 2/1 4/1 6/1 ]\n"),
        "{}",
        doc.stdout
    );
    let miss = ajisai(&["doc", "SWAP"], "");
    assert_eq!((miss.code, miss.stdout.as_str()), (1, ""));
    assert!(
        miss.stderr.starts_with("ajisai: Unknown word: SWAP"),
        "{}",
        miss.stderr
    );
    assert!(
        miss.stderr.contains("; hint: Ajisai has no SWAP"),
        "{}",
        miss.stderr
    );
    let near = ajisai(&["doc", "lenght"], "");
    assert_eq!(
        near.stderr,
        "ajisai: Unknown word: lenght; closest: LENGTH\n"
    );
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ajisai(&["completions", shell], "");
        assert_eq!(script.code, 0, "{shell}");
        assert!(script.stdout.contains("ajisai"), "{shell}");
        assert!(script.stdout.contains("completions"), "{shell}");
    }
}

#[test]
fn io_errors_exit_2_with_empty_stdout() {
    let dir = scratch();
    let bad = write(&dir, "bad.ajisai", b"1 \xff 2");
    let missing = dir.join("missing.ajisai").to_string_lossy().into_owned();
    let dir_arg = dir.to_string_lossy().into_owned();
    let cases: Vec<(Vec<&str>, &[u8], String)> = vec![
        (
            vec!["run", &missing],
            b"",
            format!("cannot read '{missing}'"),
        ),
        (
            vec!["check", &missing, "--json"],
            b"",
            format!("cannot read '{missing}'"),
        ),
        (vec!["run", &dir_arg], b"", "is a directory".to_string()),
        (
            vec!["run", &bad, "--json"],
            b"",
            "not valid UTF-8 (invalid byte at offset 2)".to_string(),
        ),
        (
            vec!["run", "-"],
            b"TRUE \xc3",
            "<stdin>: the source is not valid UTF-8".to_string(),
        ),
        (
            vec!["test", &missing],
            b"",
            format!("cannot read '{missing}'"),
        ),
    ];
    for (args, stdin, needle) in cases {
        let out = ajisai_env(&args, stdin, &[]);
        assert_eq!((out.code, out.stdout.as_str()), (2, ""), "{args:?}");
        assert!(out.stderr.contains(&needle), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn an_unknown_numeric_backend_is_refused() {
    let out = ajisai_env(&["run", "-"], b"TRUE", &[("AJISAI_NUMERICS", "abacus")]);
    assert_eq!((out.code, out.stdout.as_str()), (2, ""));
    assert!(
        out.stderr.contains("AJISAI_NUMERICS=\"abacus\""),
        "{}",
        out.stderr
    );
    let pure = ajisai_env(&["--version"], b"", &[("AJISAI_NUMERICS", "pure")]);
    assert_eq!(pure.code, 0);
    assert!(pure.stdout.contains("numerics: pure"));
}

// ---- test ----

#[test]
fn test_runs_examples_with_the_files_words() {
    let dir = scratch();
    let file = write(
        &dir,
        "words.ajisai",
        b"# Negation twice\n#:example TRUE TWICE-NOT => TRUE\n#:example FALSE TWICE-NOT NIL => FALSE NIL\n\
          #:example 1 TWICE-NOT => error:typeMismatch\n{ NOT NOT } 'TWICE-NOT' DEF\n",
    );
    let out = ajisai(&["test", &file], "");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    assert!(out.stderr.contains("3 passed, 0 failed"), "{}", out.stderr);
}

#[test]
fn test_prints_one_line_per_failure_and_exits_1() {
    let dir = scratch();
    write(
        &dir,
        "a.ajisai",
        b"#:example TRUE NOT => TRUE\n#:example TRUE => TRUE\n",
    );
    write(
        &dir,
        "sub/b.ajisai",
        b"#:example FOO => TRUE\n#:example no arrow here\n",
    );
    write(&dir, "sub/ignored.txt", b"#:example TRUE => FALSE\n");
    let out = ajisai(&["test", &dir.to_string_lossy()], "");
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert!(
        lines[0].ends_with("a.ajisai:1: TRUE NOT => expected TRUE, got FALSE"),
        "{}",
        lines[0]
    );
    assert!(lines[1].ends_with(
        "b.ajisai:2: malformed #:example line (expected '#:example <source> => <display>')"
    ));
    assert!(
        lines[2].contains("b.ajisai:1: FOO => expected TRUE, got error:unknownWord"),
        "{}",
        lines[2]
    );
    assert!(
        out.stderr.contains("1 passed, 3 failed (2 file(s))"),
        "{}",
        out.stderr
    );
}

#[test]
fn test_reports_a_file_that_fails_to_run() {
    let dir = scratch();
    let file = write(&dir, "broken.ajisai", b"#:example TRUE => TRUE\n1 NOT\n");
    let out = ajisai(&["test", &file], "");
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("the file itself fails at line 2, column 3: typeMismatch"),
        "{}",
        out.stdout
    );
}

// ---- repl ----

#[test]
fn repl_continues_one_program_across_lines_and_errors() {
    let out = ajisai(
        &["repl"],
        "TRUE\n'x' PRINT FALSE\n\n{ NOT } 'FLIP' DEF\nFLIP\n1 NOT\nNIL\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Lines are numbered across the session: `1 NOT` is line 6.
    let expected = "TRUE\nx\nTRUE | FALSE\nTRUE | FALSE\nTRUE | TRUE\n\
                    error at line 6, column 3: typeMismatch: ";
    assert!(out.stdout.starts_with(expected), "{}", out.stdout);
    assert!(
        out.stdout
            .ends_with("TRUE | TRUE | 1/1\nTRUE | TRUE | 1/1 | NIL (nil:literal)\n"),
        "{}",
        out.stdout
    );
}

/// An error inside a User Word points at the line the Word was written on, an error in
/// the line itself at that line, and a syntax error's message names the session's line.
#[test]
fn repl_positions_count_lines_across_the_session() {
    let out = ajisai(&["repl"], "1\n{ 'a' + } 'BAD' DEF\n\n2 BAD\n3 [ 4\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    for line in [
        "error at line 2, column 7: typeMismatch: ",
        "error at line 5, column 3: malformedSource: ",
    ] {
        assert!(out.stdout.contains(line), "{line} in:\n{}", out.stdout);
    }
    assert!(out.stdout.contains("at line 5, column 3"), "{}", out.stdout);
}

/// The repl completes an unknown name's message with its near misses, User Words
/// defined on earlier lines included (the host appends them, not the machine).
#[test]
fn repl_suggests_near_misses_from_the_session_dictionary() {
    let out = ajisai(&["repl"], "{ 1 } 'COUNTER' DEF\nCOUNTR\n[ 1 ] LENGHT\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    for message in [
        "unknownWord: Unknown word: COUNTR; closest: COUNTER\n",
        "unknownWord: Unknown word: LENGHT; closest: LENGTH\n",
    ] {
        assert!(out.stdout.contains(message), "{}", out.stdout);
    }
}

#[test]
fn repl_stops_with_exit_2_on_a_line_that_is_not_utf8() {
    let out = ajisai_env(&["repl"], b"TRUE\n\xff\nFALSE\n", &[]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stdout, "TRUE\n",
        "lines before the bad one were answered"
    );
    assert!(
        out.stderr.contains("<stdin> line 2 is not valid UTF-8"),
        "{}",
        out.stderr
    );
}

#[test]
fn repl_on_empty_input_prints_nothing() {
    let out = ajisai(&["repl", "--profile", "mcp"], "");
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
}

#[test]
fn check_counts_verified_declarations_and_lists_every_finding() {
    let ok = ajisai(
        &["check", "-"],
        "#:contract A inputs=1\n#:contract B field=extends\n{ 1 + } 'A' DEF { SQRT } 'B' DEF",
    );
    assert_eq!(ok.code, 0);
    assert_eq!(
        ok.stdout,
        "ok: well-formed, every name resolves, 2 #:contract declarations verified (nothing was executed)\n"
    );
    let bad = ajisai(
        &["check", "-"],
        "#:contract A inputs=2 outputs=2\n#:contract B field=closed\n{ 1 + } 'A' DEF\n{ SQRT } 'B' DEF",
    );
    assert_eq!(bad.code, 1);
    assert!(bad.stdout.is_empty());
    let lines: Vec<&str> = bad.stderr.lines().collect();
    assert_eq!(
        lines,
        [
            "error at line 1, column 1: contractViolation: contract violation: #:contract A declares inputs=2, inferred inputs=1 (and 2 more)",
            "  error at line 1: #:contract A declares inputs=2, inferred inputs=1",
            "  error at line 1: #:contract A declares outputs=2, inferred outputs=1",
            "  error at line 2: #:contract B declares field=closed, inferred field=extends",
        ]
    );
}

#[test]
fn the_phrasebook_file_checks_infers_and_passes_its_examples() {
    let file =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/phrasebook/phrasebook.ajisai");
    let file = file.to_str().expect("a UTF-8 path");
    let check = ajisai(&["check", file], "");
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(check.stdout.contains("#:contract declarations verified"));
    // Every #:contract line of the file is what inference suggests.
    let text = std::fs::read_to_string(file).expect("readable");
    let declared: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("#:contract "))
        .collect();
    let contract = ajisai(&["contract", file], "");
    assert_eq!(contract.code, 0);
    for line in &declared {
        assert!(
            contract.stdout.lines().any(|l| l == *line),
            "{line} is not what inference suggests"
        );
    }
    for profile in ["cli", "mcp"] {
        let test = ajisai(&["test", file, "--profile", profile], "");
        assert_eq!(test.code, 0, "{}{}", test.stdout, test.stderr);
    }
}
