//! The evaluation's scorer (`ajisai_golden::eval`, eval/README.md) on small hand-made
//! traces — right, wrong, repaired, unanswered, a call where none was needed — and on the
//! captured baselines in `eval/baselines/`, whose scores are recorded beside them
//! (`<trace>.score.json`; `AJISAI_BLESS=1` rewrites them).

use ajisai_golden::eval::{self, Case};
use serde_json::{json, Value};
use std::path::Path;

const CORPUS: &str = include_str!("../../eval/cases.json");

fn cases() -> Vec<Case> {
    eval::corpus(CORPUS).expect("the corpus reads")
}

fn lines(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

fn session() -> Value {
    json!({"kind": "session", "date": "2026-12-05", "serverVersion": "0.1.0", "agent": "test"})
}

fn call(case: &str, lang: &str, tool: &str, result: Value) -> Value {
    json!({"kind": "call", "case": case, "lang": lang, "tool": tool, "arguments": {}, "result": result})
}

fn answer(case: &str, lang: &str, text: &str) -> Value {
    json!({"kind": "answer", "case": case, "lang": lang, "text": text})
}

fn attempt<'a>(score: &'a eval::Score, case: &str, lang: &str) -> &'a eval::Attempt {
    score
        .attempts
        .iter()
        .find(|a| a.case == case && a.lang == lang)
        .expect("every attempt is scored")
}

#[test]
fn the_scorer_tells_right_wrong_and_repaired_apart() {
    let third = json!({"status": "ok", "outcome": "value", "stackDisplay": ["1/3"]});
    let wrong = json!({"status": "ok", "outcome": "value", "stackDisplay": ["3/1"]});
    let failed = json!({"status": "error", "outcome": "error:unknownWord", "stackDisplay": []});
    let text = lines(&[
        session(),
        // Right at once.
        call("exact-fraction", "en", "compute", third.clone()),
        answer("exact-fraction", "en", "It is exactly 1/3."),
        // An error, then the right call: repaired.
        call("exact-fraction", "ja", "compute", failed.clone()),
        call("exact-fraction", "ja", "compute", third.clone()),
        answer("exact-fraction", "ja", "1/3 です。"),
        // The right call, but the answer does not say it.
        call(
            "decimal-no-float",
            "en",
            "compute",
            json!({"status": "ok", "outcome": "value", "stackDisplay": ["3/10"]}),
        ),
        answer("decimal-no-float", "en", "about 0.3"),
        // A wrong result.
        call("algebraic-sqrt", "en", "compute", wrong),
        answer("algebraic-sqrt", "en", "3"),
        // No call needed and none made; a call where none was needed.
        answer("no-call-sine", "en", "This server has no trigonometry."),
        call("no-call-sine", "ja", "compute", failed),
        answer("no-call-sine", "ja", "できません"),
    ]);
    let trace = eval::trace(&text).expect("parses");
    let score = eval::score(&cases(), &trace).expect("scores");
    assert_eq!(score.total, 2 * cases().len());
    let right = attempt(&score, "exact-fraction", "en");
    assert!(right.correct && right.calls == 1 && right.errors == 0 && !right.repaired);
    let repaired = attempt(&score, "exact-fraction", "ja");
    assert!(
        repaired.correct && repaired.errors == 1 && repaired.repaired,
        "{repaired:?}"
    );
    let unsaid = attempt(&score, "decimal-no-float", "en");
    assert!(!unsaid.correct && unsaid.why.contains("3/10"), "{unsaid:?}");
    let wrong = attempt(&score, "algebraic-sqrt", "en");
    assert!(
        !wrong.correct && wrong.why.contains("no compute call"),
        "{wrong:?}"
    );
    assert!(attempt(&score, "no-call-sine", "en").correct);
    assert!(!attempt(&score, "no-call-sine", "ja").correct);
    let unanswered = attempt(&score, "big-power", "en");
    assert!(!unanswered.correct && unanswered.why == "no answer");
    assert_eq!(score.correct, 3);
    assert_eq!((score.calls, score.errors, score.repairs), (6, 2, 1));
    let table = eval::table(&score);
    assert!(
        table.contains("overall: 3/98 correct, 6 calls, 2 errors, 1 repairs"),
        "{table}"
    );
    assert!(table.contains("en: 2/49 correct"), "{table}");
}

#[test]
fn an_expected_error_is_not_a_repair() {
    // typo-unknown-word expects the error itself.
    let case = cases()
        .into_iter()
        .find(|c| c.id == "typo-unknown-word")
        .expect("the case");
    let expect = case.expect.clone().expect("expectations");
    let mut result = json!({});
    for (pointer, value) in &expect {
        let keys: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
        let mut at = &mut result;
        for (i, k) in keys.iter().enumerate() {
            if i + 1 == keys.len() {
                at[*k] = value.clone();
            } else {
                at = &mut at[*k];
            }
        }
    }
    let shown: Vec<String> = expect
        .get("/stackDisplay")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let text = lines(&[
        session(),
        call(
            "typo-unknown-word",
            "en",
            case.expected_tool.as_deref().unwrap_or("compute"),
            result,
        ),
        answer(
            "typo-unknown-word",
            "en",
            &format!("The name is unknown: {}", shown.join(" ")),
        ),
    ]);
    let score = eval::score(&cases(), &eval::trace(&text).expect("parses")).expect("scores");
    let a = attempt(&score, "typo-unknown-word", "en");
    assert!(a.correct, "{a:?}");
    assert!(!a.repaired && a.errors == 1, "{a:?}");
}

#[test]
fn malformed_traces_are_refused_with_their_line() {
    let c = cases();
    let no_session = lines(&[answer("exact-fraction", "en", "1/3")]);
    assert!(eval::trace(&no_session).unwrap_err().contains("line 1"));
    let bad = format!("{}not json\n", lines(&[session()]));
    assert!(eval::trace(&bad).unwrap_err().contains("line 2"));
    let unknown = lines(&[session(), answer("no-such-case", "en", "x")]);
    let trace = eval::trace(&unknown).expect("parses");
    assert!(eval::score(&c, &trace)
        .unwrap_err()
        .contains("no-such-case"));
    let lang = lines(&[session(), answer("exact-fraction", "fr", "x")]);
    assert!(eval::score(&c, &eval::trace(&lang).expect("parses")).is_err());
    let twice = lines(&[session(), session()]);
    assert!(eval::trace(&twice).unwrap_err().contains("line 2"));
}

/// Every captured baseline reads, answers every attempt of the corpus, and scores as
/// recorded beside it.
#[test]
fn the_captured_baselines_score_as_recorded() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval/baselines");
    let traces = ajisai_golden::files_ending(&dir, ".jsonl");
    assert!(
        !traces.is_empty(),
        "at least one baseline in eval/baselines/"
    );
    let bless = std::env::var_os("AJISAI_BLESS").is_some();
    for (path, text) in traces {
        let trace = eval::trace(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            !trace.session.date.is_empty() && !trace.session.server_version.is_empty(),
            "{}: the session names its date and server version",
            path.display()
        );
        let score =
            eval::score(&cases(), &trace).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let unanswered: Vec<String> = score
            .attempts
            .iter()
            .filter(|a| a.why == "no answer")
            .map(|a| format!("{} ({})", a.case, a.lang))
            .collect();
        assert!(
            unanswered.is_empty(),
            "{}: unanswered {unanswered:?}",
            path.display()
        );
        println!("{}\n{}", path.display(), eval::table(&score));
        let recorded_path = path.with_extension("score.json");
        let now = serde_json::to_string_pretty(&score).expect("serializes") + "\n";
        if bless {
            std::fs::write(&recorded_path, &now).expect("writable");
        }
        let recorded = std::fs::read_to_string(&recorded_path).unwrap_or_default();
        assert!(
            recorded == now,
            "{} differs from its score; run AJISAI_BLESS=1 cargo test -p ajisai-golden --test golden eval:: and review",
            recorded_path.display()
        );
    }
}

/// What follows from how a program was written does not decide; what it answers does:
/// an expected error met in another operand order is right, another category is wrong;
/// more phrasebook Words than expected are fine, a missing one is not.
#[test]
fn the_answer_decides_not_the_programs_shape() {
    let mismatch = json!({"status": "error", "outcome": "error:typeMismatch", "stackDisplay": ["1/1", "'a'"],
        "error": {"category": "typeMismatch", "word": "ADD"}});
    let unknown = json!({"status": "error", "outcome": "error:unknownWord", "stackDisplay": ["'a'", "1/1"],
        "error": {"category": "unknownWord", "word": "ADD"}});
    let prime = |prelude: Value| json!({"status": "ok", "outcome": "value", "stackDisplay": ["FALSE", "[ 1/1 13/1 ]"], "prelude": prelude});
    let is_prime = json!({"name": "IS-PRIME", "digest": "sha256:27791cf9a59969a8a00178abfaa212c7b8e5db123e337994032fca6d0d23ff2f"});
    let divisors = json!({"name": "DIVISORS", "digest": "sha256:c95d50d1cfc6fc76d89614c134a1c7b4b63206710a6223f859a517ecb8d6f04d"});
    let text = lines(&[
        session(),
        call("type-mismatch", "en", "compute", mismatch),
        answer("type-mismatch", "en", "typeMismatch"),
        call("type-mismatch", "ja", "compute", unknown),
        answer("type-mismatch", "ja", "unknownWord"),
        call(
            "is-prime-phrasebook",
            "en",
            "compute",
            prime(json!([is_prime.clone(), divisors.clone()])),
        ),
        answer("is-prime-phrasebook", "en", "No: 221 = 13 × 17."),
        call(
            "is-prime-phrasebook",
            "ja",
            "compute",
            prime(json!([divisors])),
        ),
        answer("is-prime-phrasebook", "ja", "いいえ"),
    ]);
    let score = eval::score(&cases(), &eval::trace(&text).expect("parses")).expect("scores");
    assert!(attempt(&score, "type-mismatch", "en").correct);
    assert!(!attempt(&score, "type-mismatch", "ja").correct);
    assert!(attempt(&score, "is-prime-phrasebook", "en").correct);
    assert!(!attempt(&score, "is-prime-phrasebook", "ja").correct);
}
