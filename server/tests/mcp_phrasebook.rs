//! The phrasebook and the contract tools over the live server (docs/phrasebook.md, docs/mcp/tools.md):
//! `ajisai://phrasebook`, `words` and `prelude`, the golden contract cases on every
//! numeric backend, every phrasebook example, Word digests, `AJISAI_PHRASEBOOK`
//! overrides (startup refusal, `--doctor`, the asset digest) and the `words`
//! description.

use crate::mcp_support;

use ajisai_core::identity;
use ajisai_core::numerics;
use ajisai_core::{Machine, Profile};
use ajisai_host::assets;
use ajisai_host::phrasebook::{Origin, ServedPhrasebook};
use ajisai_server::mcp::{AjisaiServer, ServerOptions};
use mcp_support::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn read_repo(path: &str) -> String {
    std::fs::read_to_string(repo(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The kinds of numeric backend this build links, as `AJISAI_NUMERICS` spells them.
fn backend_kinds() -> Vec<&'static str> {
    ajisai_host::backend::link();
    numerics::registered().iter().map(|b| b.kind.id()).collect()
}

/// A phrasebook text with every `#:digest` line (re)computed: the lines that are not
/// directives run as one program, and each Word's content identity follows its DEF line.
fn bless(text: &str) -> String {
    ajisai_host::backend::link();
    let program: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("#:digest"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut m = Machine::new(Profile::MCP_LOCAL_STDIO, ajisai_core::word::registry());
    assert!(
        m.run_source(&program).is_ok(),
        "the phrasebook defines: {program}"
    );
    let ids = identity::identities(m.dictionary());
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#:digest") {
            continue;
        }
        out.push(line.to_string());
        let t = line.trim();
        if t.starts_with('{') && t.ends_with("DEF") {
            let name = t
                .rsplit_once('\'')
                .and_then(|(a, _)| a.rsplit_once('\''))
                .map(|(_, n)| n.to_uppercase())
                .expect("a DEF line names its Word");
            out.push(format!("#:digest {}", ids[&name]));
        }
    }
    out.join("\n") + "\n"
}

/// A temporary directory for override files, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("ajisai-phrasebook-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).expect("writable");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run the binary with `args` and `env` (no other `AJISAI_*`), closing stdin at once.
fn run_bin(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(args)
        .env_remove("AJISAI_NUMERICS")
        .env_remove("AJISAI_NUMERICS_PLUGIN")
        .env_remove("AJISAI_PHRASEBOOK")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The value at an RFC 6901 pointer, `None` when it resolves to nothing.
fn at<'a>(v: &'a Value, pointer: &str) -> Option<&'a Value> {
    v.pointer(pointer)
}

/// The envelope text with `mcp.backend` removed (MCP-90 compares the rest; docs/mcp/verification.md#backend-parity).
fn without_backend(v: &Value) -> String {
    let mut v = v.clone();
    if let Some(mcp) = v.get_mut("mcp").and_then(Value::as_object_mut) {
        mcp.remove("backend");
    }
    serde_json::to_string(&v).expect("serializes")
}

#[tokio::test]
async fn the_phrasebook_is_the_sixth_resource_byte_for_byte() {
    let client = spawn().await;
    let (mime, text) = read(&client, "ajisai://phrasebook").await;
    assert_eq!(mime, "text/plain");
    assert_eq!(text, assets::phrasebook_ajisai());
    assert_eq!(text, read_repo("docs/phrasebook/phrasebook.ajisai"));
    assert_no_host_detail(&text);
    client.cancel().await.expect("closes");
}

#[tokio::test]
async fn the_contract_cases_hold_on_the_live_server_on_every_backend() {
    let doc: Value = serde_json::from_str(&read_repo("golden/cases-contracts.json")).expect("JSON");
    assert_eq!(doc["schemaVersion"], 2);
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 50, "{} cases", cases.len());
    let mut reference: Option<(&str, Vec<String>)> = None;
    let mut failures = Vec::new();
    for kind in backend_kinds() {
        let client = spawn_with_env(&[("AJISAI_NUMERICS", kind)]).await;
        let mut envelopes = Vec::new();
        for case in cases {
            let name = case["name"].as_str().expect("a name");
            let tool = case
                .get("tool")
                .and_then(Value::as_str)
                .unwrap_or("compute");
            let result = call_raw(&client, tool, case["arguments"].clone()).await;
            let v = envelope(&result);
            let expects_host_error = case["expect"]["/status"] == "hostError";
            if v["status"] == "hostError" && !expects_host_error {
                failures.push(format!("[{kind}] {name}: unexpected host error {v}"));
            }
            for (pointer, want) in case["expect"].as_object().expect("expect") {
                if at(&v, pointer) != Some(want) {
                    failures.push(format!(
                        "[{kind}] {name}: {pointer} is {:?}, expected {want}",
                        at(&v, pointer)
                    ));
                }
            }
            for pointer in case
                .get("expectAbsent")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let pointer = pointer.as_str().expect("a pointer");
                if at(&v, pointer).is_some() {
                    failures.push(format!("[{kind}] {name}: {pointer} is present"));
                }
            }
            assert_eq!(v["mcp"]["backend"]["kind"], kind);
            envelopes.push(without_backend(&v));
        }
        match &reference {
            None => reference = Some((kind, envelopes)),
            Some((first, expected)) => {
                for (i, (a, e)) in envelopes.iter().zip(expected).enumerate() {
                    if a != e {
                        failures.push(format!(
                            "{}: {first} and {kind} answer differently",
                            cases[i]["name"]
                        ));
                    }
                }
            }
        }
        client.cancel().await.expect("closes");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn every_phrasebook_example_holds_with_only_its_word_requested() {
    ajisai_host::backend::link();
    let book = ServedPhrasebook::embedded().expect("the embedded phrasebook loads");
    let mut failures = Vec::new();
    let mut count = 0;
    for kind in backend_kinds() {
        let client = spawn_with_env(&[("AJISAI_NUMERICS", kind)]).await;
        for e in book.entries() {
            let closure = book.prelude(&[e.name.to_string()]);
            let prelude: Vec<Value> = closure
                .iter()
                .map(|d| json!({ "name": &*d.name, "digest": d.digest }))
                .collect();
            for ex in &e.examples {
                count += 1;
                // The name as a caller might write it: lower case.
                let v = call(
                    &client,
                    "compute",
                    json!({ "source": ex.source, "words": [e.name.to_lowercase()] }),
                )
                .await;
                let shown: Vec<&str> = v["stackDisplay"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if v["status"] != "ok" || shown.join(" ") != ex.expect {
                    failures.push(format!(
                        "[{kind}] line {}: `{}` gave {} {:?}, expected {}",
                        ex.line, ex.source, v["status"], shown, ex.expect
                    ));
                }
                if v["prelude"] != Value::Array(prelude.clone()) {
                    failures.push(format!(
                        "[{kind}] {}: prelude {} expected {prelude:?}",
                        e.name, v["prelude"]
                    ));
                }
            }
        }
        client.cancel().await.expect("closes");
    }
    assert!(count >= 50, "{count} examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn prelude_digests_are_the_digest_lines_and_the_engine_identity() {
    ajisai_host::backend::link();
    let text = assets::phrasebook_ajisai();
    let book = ServedPhrasebook::embedded().expect("loads");
    assert!(book.entries().len() >= 25);
    // The engine's own identity of every Word, from running the file as a program.
    let mut m = Machine::new(Profile::MCP_LOCAL_STDIO, ajisai_core::word::registry());
    assert!(m.run_source(text).is_ok(), "the file is a program");
    let ids = identity::identities(m.dictionary());
    let digest_lines: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("#:digest "))
        .collect();
    let names: Vec<String> = book.entries().iter().map(|e| e.name.to_string()).collect();
    assert_eq!(digest_lines.len(), names.len());
    let client = spawn().await;
    let v = call(
        &client,
        "check",
        json!({ "source": "1", "words": names.iter().rev().collect::<Vec<_>>() }),
    )
    .await;
    let prelude = v["prelude"].as_array().expect("prelude");
    assert_eq!(
        prelude.len(),
        names.len(),
        "every Word once, dependencies included"
    );
    for ((entry, name), line) in prelude.iter().zip(&names).zip(&digest_lines) {
        assert_eq!(entry["name"], name.as_str(), "definition (file) order");
        assert_eq!(
            entry["digest"], *line,
            "{name}: prelude digest = #:digest line"
        );
        assert_eq!(ids[name], *line, "{name}: #:digest line = engine identity");
    }
    client.cancel().await.expect("closes");
}

#[test]
fn digests_follow_content_not_layout_and_dependencies_propagate() {
    let base = bless("{ 2 * } 'BASE' DEF\n{ BASE 1 + } 'DEP' DEF\n{ DEP DEP } 'TOP' DEF\n");
    let load = |t: &str| {
        ServedPhrasebook::from_text(t, Origin::Override("test".into()))
            .unwrap_or_else(|f| panic!("{}", f.diagnostic()))
    };
    let digests = |p: &ServedPhrasebook| -> Vec<String> {
        p.entries().iter().map(|e| e.digest.clone()).collect()
    };
    let a = load(&base);
    // Reformatted, lower-case and alias spellings: the same Words.
    let relaid =
        bless("{   2   MUL }   'base' DEF\n{ base 1 add } 'dep' DEF\n{ dep\tDEP } 'Top' DEF\n");
    assert_eq!(digests(&a), digests(&load(&relaid)));
    // A changed dependency changes every dependent, not the Words it does not reach.
    let changed = bless("{ 3 * } 'BASE' DEF\n{ BASE 1 + } 'DEP' DEF\n{ DEP DEP } 'TOP' DEF\n");
    let b = load(&changed);
    for (x, y) in digests(&a).iter().zip(digests(&b)) {
        assert_ne!(*x, y, "every Word depends on BASE");
    }
    let leaf = bless("{ 2 * } 'BASE' DEF\n{ BASE 1 + } 'DEP' DEF\n{ DEP DEP DEP } 'TOP' DEF\n");
    let c = load(&leaf);
    assert_eq!(digests(&a)[..2], digests(&c)[..2]);
    assert_ne!(digests(&a)[2], digests(&c)[2]);
    // A digest line that no longer matches is refused with its line.
    let stale = changed.replace(&digests(&b)[1], &digests(&a)[1]);
    let fault = ServedPhrasebook::from_text(&stale, Origin::Override("stale.ajisai".into()))
        .expect_err("a stale digest is refused");
    assert!(
        fault
            .diagnostic()
            .starts_with("phrasebook: line 4: the #:digest of DEP does not match"),
        "{}",
        fault.diagnostic()
    );
}

#[tokio::test]
async fn an_in_process_override_serves_its_own_words() {
    ajisai_host::backend::link();
    let text = bless(
        "# Tiny\n#:contract TRIPLE inputs=1 outputs=1 field=closed\n#:example 2 TRIPLE => 6/1\n{ 3 * } 'TRIPLE' DEF\n{ TRIPLE TRIPLE } 'NINEFOLD' DEF\n",
    );
    let book =
        ServedPhrasebook::from_text(&text, Origin::Override("tiny.ajisai".into())).expect("loads");
    let server = AjisaiServer::with_phrasebook(ServerOptions::production(), book.clone());
    let (mime, served) = server.read("ajisai://phrasebook").expect("served");
    assert_eq!((mime, served.as_str()), ("text/plain", text.as_str()));
    let words = server.tool_list()[0].input_schema["properties"]["words"]["description"]
        .as_str()
        .expect("described")
        .to_string();
    assert!(words.contains("Available: TRIPLE, NINEFOLD."), "{words}");
    assert!(!words.contains("MEAN"), "{words}");
    assert!(
        server.provenance().json().contains(book.asset_digest()),
        "mcp.assetDigest is the override's"
    );
    let r = server
        .execute_now_with(
            ajisai_service::validate::ToolKind::COMPUTE,
            "2 ninefold",
            &["NineFold".to_string()],
        )
        .expect("runs");
    let v = answer_envelope(&r);
    assert_eq!(v["stackDisplay"], json!(["18/1"]));
    let names: Vec<&str> = v["prelude"]
        .as_array()
        .expect("prelude")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["TRIPLE", "NINEFOLD"]);
    let e = server
        .execute_now_with(
            ajisai_service::validate::ToolKind::CHECK,
            "1",
            &["MEAN".to_string()],
        )
        .expect_err("the embedded Words are gone");
    assert!(e.message.contains("`MEAN`"), "{}", e.message);
}

#[tokio::test]
async fn an_override_file_replaces_the_phrasebook_everywhere() {
    let dir = TempDir::new("override");
    let text = bless(
        "#:contract TRIPLE inputs=1 outputs=1 field=closed\n#:example 2 TRIPLE => 6/1\n{ 3 * } 'TRIPLE' DEF\n",
    );
    dir.write("mine.ajisai", &text);
    // Relative to the server's working directory (MCP-80; docs/phrasebook.md).
    let env = [("AJISAI_PHRASEBOOK", "mine.ajisai")];
    let client = spawn_in(&dir.0, &env).await;
    let (_, served) = read(&client, "ajisai://phrasebook").await;
    assert_eq!(served, text);
    let tools = client.list_all_tools().await.expect("tools/list");
    let words = tools[0].input_schema["properties"]["words"]["description"]
        .as_str()
        .expect("described");
    assert!(words.contains("Available: TRIPLE."), "{words}");
    let v = call(
        &client,
        "compute",
        json!({ "source": "5 TRIPLE", "words": ["triple"] }),
    )
    .await;
    assert_eq!(v["stackDisplay"], json!(["15/1"]));
    let expected_digest = assets::asset_digest_with(&[("phrasebook.ajisai", text.as_bytes())]);
    assert_eq!(v["mcp"]["assetDigest"], expected_digest.as_str());
    assert_ne!(expected_digest, assets::asset_digest());
    let v = call(
        &client,
        "compute",
        json!({ "source": "1", "words": ["MEAN"] }),
    )
    .await;
    assert_eq!(v["status"], "hostError");
    assert_eq!(v["mcp"]["assetDigest"], expected_digest.as_str());
    client.cancel().await.expect("closes");

    let path = dir.0.join("mine.ajisai");
    let path = path.to_str().expect("a UTF-8 path");
    let (code, stdout, _) = run_bin(&["--version"], &[("AJISAI_PHRASEBOOK", path)]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains(&format!("\nassets: {expected_digest}\n")),
        "{stdout}"
    );
    let (code, stdout, _) = run_bin(&["--doctor"], &[("AJISAI_PHRASEBOOK", path)]);
    assert_eq!(code, 0, "{stdout}");
    let d3 = stdout
        .lines()
        .find(|l| l.contains(" phrasebook — "))
        .expect("D3");
    assert!(d3.starts_with("ok    phrasebook — override "), "{d3}");
    assert!(
        d3.contains("1 Word;") && d3.contains("1 examples hold"),
        "{d3}"
    );
    // Empty means unset: the embedded phrasebook.
    let (code, stdout, _) = run_bin(&["--version"], &[("AJISAI_PHRASEBOOK", "")]);
    assert_eq!(code, 0);
    assert!(stdout.contains(&format!("\nassets: {}\n", assets::asset_digest())));
}

#[test]
fn a_bad_override_is_refused_at_startup_and_fails_the_doctor() {
    let dir = TempDir::new("refused");
    let good = bless("{ 3 * } 'TRIPLE' DEF\n");
    let wrong = good.replace(
        good.lines()
            .find_map(|l| l.strip_prefix("#:digest "))
            .expect("a digest"),
        &format!("sha256:{}", "0".repeat(64)),
    );
    let cases = [
        ("wrong.ajisai", wrong, "phrasebook: line 2: the #:digest of TRIPLE does not match"),
        (
            "missing.ajisai",
            "{ 3 * } 'TRIPLE' DEF\n".to_string(),
            "phrasebook: line 2: the DEF line 1 must be followed by its `#:digest sha256:…` line",
        ),
        (
            "contract.ajisai",
            bless("#:contract TRIPLE inputs=2\n{ 3 * } 'TRIPLE' DEF\n"),
            "phrasebook: line 1: contract violation: #:contract TRIPLE declares inputs=2, inferred inputs=1",
        ),
        (
            "core.ajisai",
            "{ 3 * } 'ADD' DEF\n#:digest sha256:0\n".to_string(),
            "phrasebook: line 1: ADD is not a valid User Word name (or it is a Core Word or alias)",
        ),
    ];
    let init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\n";
    for (file, text, problem) in &cases {
        let path = dir.write(file, text);
        let path = path.to_str().expect("a UTF-8 path");
        let mut child = std::process::Command::new(BIN)
            .env_remove("AJISAI_NUMERICS")
            .env_remove("AJISAI_NUMERICS_PLUGIN")
            .env("AJISAI_PHRASEBOOK", path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            // The server may already have exited; a broken pipe is fine.
            let _ = stdin.write_all(init.as_bytes());
        }
        let out = child.wait_with_output().expect("exits");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
        assert!(out.stdout.is_empty(), "{file}: nothing on stdout");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{file}: one line: {stderr}");
        assert!(
            lines[0].starts_with(&format!("[ajisai-mcp] {problem}")),
            "{file}: {}",
            lines[0]
        );
        assert!(lines[0].ends_with(&format!("(AJISAI_PHRASEBOOK={path})")));
        let (code, stdout, _) = run_bin(&["--doctor"], &[("AJISAI_PHRASEBOOK", path)]);
        assert_eq!(code, 1, "{file}: {stdout}");
        assert!(
            stdout.contains(&format!(
                "FAIL  phrasebook — {}",
                problem.trim_start_matches("phrasebook: ")
            )),
            "{file}: {stdout}"
        );
        let (code, stdout, _) = run_bin(&["--version"], &[("AJISAI_PHRASEBOOK", path)]);
        assert_eq!(code, 0, "identification is not a health check");
        assert!(stdout.contains("\nassets: unavailable ("), "{stdout}");
    }
    // Unreadable, and not UTF-8.
    let missing = dir.0.join("absent.ajisai");
    let missing = missing.to_str().expect("a UTF-8 path");
    let (code, stdout, stderr) = run_bin(&[], &[("AJISAI_PHRASEBOOK", missing)]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(
        stderr.starts_with(&format!(
            "[ajisai-mcp] phrasebook: cannot read AJISAI_PHRASEBOOK={missing}: "
        )),
        "{stderr}"
    );
    let latin1 = dir.0.join("latin1.ajisai");
    std::fs::write(&latin1, b"# caf\xe9\n").expect("writable");
    let (code, _, stderr) = run_bin(
        &[],
        &[("AJISAI_PHRASEBOOK", latin1.to_str().expect("UTF-8"))],
    );
    assert_eq!(code, 1);
    assert!(stderr.contains("not UTF-8 text"), "{stderr}");
}

#[tokio::test]
async fn more_than_64_words_are_listed_by_the_resource_not_the_description() {
    ajisai_host::backend::link();
    let mut text = String::new();
    for i in 0..65 {
        text.push_str(&format!("{{ {i} }} 'K{i}' DEF\n"));
    }
    let book =
        ServedPhrasebook::from_text(&bless(&text), Origin::Override("many".into())).expect("loads");
    let server = AjisaiServer::with_phrasebook(ServerOptions::production(), book);
    let words = server.tool_list()[0].input_schema["properties"]["words"]["description"]
        .as_str()
        .expect("described")
        .to_string();
    assert!(
        words.ends_with("The names are listed in ajisai://phrasebook."),
        "{words}"
    );
    assert!(!words.contains("K64"), "{words}");
    // All 65 exist, but one call takes at most 64.
    let all: Vec<String> = (0..65).map(|i| format!("k{i}")).collect();
    let e = server
        .execute_now_with(ajisai_service::validate::ToolKind::COMPUTE, "1", &all)
        .expect_err("65 entries");
    assert!(e.message.contains("at most 64"), "{}", e.message);
    let r = server.execute_now_with(
        ajisai_service::validate::ToolKind::COMPUTE,
        "K0 K64 +",
        &all[..64]
            .iter()
            .skip(1)
            .chain(&all[..1])
            .cloned()
            .collect::<Vec<_>>(),
    );
    // K64 was not requested: it is an unknownWord that points to `words`.
    let v = answer_envelope(&r.expect("runs"));
    assert_eq!(v["error"]["category"], "unknownWord");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("; K64 is a phrasebook Word: pass it in words")),
        "{}",
        v["message"]
    );
}

#[tokio::test]
async fn every_call_is_a_fresh_program() {
    let client = spawn().await;
    let v = call(
        &client,
        "compute",
        json!({ "source": "[ 1 2 ] MEAN", "words": ["MEAN"] }),
    )
    .await;
    assert_eq!(v["stackDisplay"], json!(["3/2"]));
    let v = compute(&client, "[ 1 2 ] MEAN").await;
    assert_eq!(v["error"]["category"], "unknownWord", "nothing persists");
    assert!(v.get("prelude").is_none());
    // A Word defined by one call's source is gone in the next.
    let v = compute(&client, "{ 1 + } 'INC' DEF 1 INC").await;
    assert_eq!(v["stackDisplay"], json!(["2/1"]));
    let v = compute(&client, "1 INC").await;
    assert_eq!(v["error"]["word"], "INC");
    client.cancel().await.expect("closes");
}

#[test]
fn the_doctor_runs_the_phrasebook_examples() {
    ajisai_host::backend::link();
    let (code, stdout, _) = run_bin(&["--doctor"], &[]);
    assert_eq!(code, 0, "{stdout}");
    let book = ServedPhrasebook::embedded().expect("loads");
    let examples: usize = book.entries().iter().map(|e| e.examples.len()).sum();
    let d3 = stdout
        .lines()
        .find(|l| l.contains(" phrasebook — "))
        .expect("D3");
    assert_eq!(
        d3,
        format!(
            "ok    phrasebook — embedded, {} Words; digests and contracts verified; {examples} examples hold",
            book.entries().len()
        )
    );
    let d7 = stdout
        .lines()
        .find(|l| l.contains(" backend parity — "))
        .expect("D7");
    if backend_kinds().len() > 1 {
        assert!(
            d7.contains(&format!("({examples} phrasebook examples)")),
            "{d7}"
        );
    } else {
        assert!(d7.ends_with("only pure available"), "{d7}");
    }
}

#[test]
fn the_guide_lists_every_phrasebook_word_with_its_contract() {
    ajisai_host::backend::link();
    let guide = read_repo("docs/phrasebook.md");
    let book = ServedPhrasebook::embedded().expect("loads");
    for e in book.entries() {
        let contract = e
            .contract
            .as_deref()
            .and_then(|c| c.split_once(' '))
            .and_then(|(_, rest)| rest.split_once(' '))
            .map(|(_, keys)| keys)
            .expect("every embedded Word has a contract");
        assert!(
            guide.contains(&format!("| `{}` |", e.name))
                && guide.contains(&format!("`{contract}`")),
            "docs/phrasebook.md lists {} with `{contract}`",
            e.name
        );
    }
}
