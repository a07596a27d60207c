//! `golden/limits.json` (MCP-56; docs/mcp/limits.md): every declared limit of `mcp-local-stdio`
//! with its boundary pair, its injected-limit test, or the host test that pins it.
//!
//! Probes run through `engine::compute` and are checked on the engine's envelope
//! (`envelope::compute_json`) by JSON Pointer, as `server/tests/golden_live.rs` checks
//! the same probes on the live server's `structuredContent`.

use ajisai_core::engine::{compute, Options};
use ajisai_core::envelope::compute_json;
use ajisai_core::json::HostFields;
use ajisai_core::{Limit, Profile, Value};
use ajisai_golden::{link, on_big_stack, Generator};
use serde_json::{Map, Value as Json};

const LIMITS: &str = include_str!("../limits.json");
const THIS_FILE: &str = include_str!("limits.rs");

fn doc() -> Json {
    serde_json::from_str(LIMITS).expect("golden/limits.json is valid JSON")
}

fn entries() -> Map<String, Json> {
    doc()["limits"]
        .as_object()
        .cloned()
        .expect("limits is an object")
}

/// The source a probe describes.
fn probe_source(probe: &Json) -> Result<String, String> {
    match probe["kind"].as_str() {
        Some("source") => probe["source"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| "source probe without source".into()),
        Some("generatedSource") => {
            let mut spec = probe.clone();
            let obj = spec.as_object_mut().ok_or("probe is not an object")?;
            let kind = obj
                .remove("generator")
                .ok_or("generatedSource without generator")?;
            let mut params = Map::new();
            params.insert("kind".into(), kind);
            for key in ["bytes", "digits", "depth"] {
                if let Some(v) = obj.get(key) {
                    params.insert(key.into(), v.clone());
                }
            }
            let g: Generator = serde_json::from_value(Json::Object(params))
                .map_err(|e| format!("bad generator: {e}"))?;
            Ok(g.source())
        }
        other => Err(format!("unknown probe kind {other:?}")),
    }
}

/// Every mismatch of one probe run under `profile`.
fn check_probe(label: &str, probe: &Json, profile: &Profile) -> Vec<String> {
    let source = match probe_source(probe) {
        Ok(s) => s,
        Err(e) => return vec![format!("{label}: {e}")],
    };
    let report = compute(&source, &Options::new(profile.clone()));
    let envelope: Json = serde_json::from_str(&compute_json(&report, &HostFields::NONE))
        .expect("the engine's envelope is valid JSON");
    let mut out = Vec::new();
    // Where the MCP host answers before the engine (sourceBytes), `engineExpect` states
    // what the engine itself answers; `expect` is then the live server's answer.
    let expect = probe.get("engineExpect").unwrap_or(&probe["expect"]);
    let absent = if probe.get("engineExpect").is_some() {
        &Json::Null
    } else {
        &probe["expectAbsent"]
    };
    for (pointer, want) in expect.as_object().into_iter().flatten() {
        match envelope.pointer(pointer) {
            Some(got) if got == want => {}
            got => out.push(format!(
                "{label}: {pointer} expected {want}, got {}",
                got.map_or("nothing".into(), Json::to_string)
            )),
        }
    }
    for pointer in absent
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
    {
        if envelope.pointer(pointer).is_some() {
            out.push(format!("{label}: {pointer} expected absent"));
        }
    }
    out
}

/// Run the under/over pair of `name` with its injected value (if any).
fn run_pair(name: &str) -> Vec<String> {
    let all = entries();
    let Some(entry) = all.get(name) else {
        return vec![format!("{name}: no entry")];
    };
    let Some(limit) = Limit::from_name(name) else {
        return vec![format!("{name}: not a limit")];
    };
    let mut profile = Profile::MCP_LOCAL_STDIO;
    if let Some(v) = entry.get("injected").and_then(Json::as_u64) {
        profile = profile.with(limit, v);
    }
    let mut out = Vec::new();
    for side in ["under", "over"] {
        match entry.get(side) {
            Some(probe) => out.extend(check_probe(&format!("{name}.{side}"), probe, &profile)),
            None => out.push(format!("{name}: no {side} probe")),
        }
    }
    out
}

fn assert_pair(name: &'static str) {
    link();
    let found = on_big_stack(move || run_pair(name));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn limits_json_declares_every_limit_of_the_served_profile() {
    let d = doc();
    assert_eq!(d["schemaVersion"], 2);
    assert_eq!(d["profile"], Profile::MCP_LOCAL_STDIO.name);
    let all = entries();
    let names: Vec<&str> = all.keys().map(String::as_str).collect();
    let expected: Vec<&str> = Limit::ALL.iter().map(|l| l.name()).collect();
    assert_eq!(
        names, expected,
        "one entry per limit, in the profile's order"
    );
    let server_toml = include_str!("../../server/Cargo.toml");
    let server_exists = server_toml.contains("ajisai-mcp-server");
    let mut problems = Vec::new();
    for limit in Limit::ALL {
        let name = limit.name();
        let e = &all[name];
        if e["declared"].as_u64() != Profile::MCP_LOCAL_STDIO.get(limit) {
            problems.push(format!(
                "{name}: declared {} but the profile serves {:?}",
                e["declared"],
                Profile::MCP_LOCAL_STDIO.get(limit)
            ));
        }
        if e["note"].as_str().is_none_or(str::is_empty) {
            problems.push(format!("{name}: no note"));
        }
        match e["coverage"].as_str() {
            Some("boundary") => {
                if e.get("under").is_none() || e.get("over").is_none() {
                    problems.push(format!("{name}: a boundary entry needs under and over"));
                }
            }
            Some("injectedLimit") => {
                let test = e["test"].as_str().unwrap_or_default();
                let f = test.rsplit("::").next().unwrap_or_default();
                if !test.starts_with("golden::limits::")
                    || !THIS_FILE.contains(&format!("fn {f}()"))
                {
                    problems.push(format!(
                        "{name}: test {test:?} does not exist in golden/tests/limits.rs"
                    ));
                }
                if e["injected"].as_u64().is_none()
                    || e.get("under").is_none()
                    || e.get("over").is_none()
                {
                    problems.push(format!(
                        "{name}: an injectedLimit entry needs injected, under and over"
                    ));
                }
            }
            Some("hostGate") => {
                if e["test"]
                    .as_str()
                    .is_none_or(|t| !t.starts_with("server::mcp_limits::"))
                {
                    problems.push(format!(
                        "{name}: a hostGate entry names a test of server/tests/mcp_limits.rs"
                    ));
                }
                // The host gates belong to the MCP server; once it is built, its test must exist.
                if server_exists {
                    let f = e["test"]
                        .as_str()
                        .and_then(|t| t.rsplit("::").next())
                        .unwrap_or_default();
                    if !server_sources_contain(&format!("fn {f}(")) {
                        problems.push(format!("{name}: server test {f} does not exist"));
                    }
                } else {
                    println!(
                        "{name}: host gate pending until the MCP server lands ({})",
                        e["test"]
                    );
                }
            }
            other => problems.push(format!("{name}: unknown coverage {other:?}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn server_sources_contain(needle: &str) -> bool {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../server");
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs")
                && std::fs::read_to_string(&p).is_ok_and(|t| t.contains(needle))
            {
                return true;
            }
        }
    }
    false
}

#[test]
fn boundary_pairs_hold() {
    link();
    let found = on_big_stack(|| {
        let all = entries();
        let mut out = Vec::new();
        for (name, e) in &all {
            if e["coverage"] == "boundary" {
                out.extend(run_pair(name));
            }
        }
        out
    });
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn injected_numeric_work() {
    assert_pair("numericWork");
}

#[test]
fn injected_bigint_bits() {
    assert_pair("bigintBits");
}

#[test]
fn injected_algebraic_terms() {
    assert_pair("algebraicTerms");
}

/// MCP-56's liveness requirement: each size ceiling of `mcp-local-stdio` can be reached
/// with its declared value before `numericWork` refuses, and one step further is refused
/// by the size limit itself.
#[test]
fn size_ceilings_are_reachable_before_numeric_work_refuses() {
    link();
    let found = on_big_stack(|| {
        let profile = Profile::MCP_LOCAL_STDIO;
        let run = |s: &str| compute(s, &Options::new(profile.clone()));
        let mut out = Vec::new();
        // 2^262143 is exactly 262,144 bits wide.
        let r = run("2 262143 POW");
        match (&r.error, r.stack.first().and_then(Value::as_number)) {
            (None, Some(n)) if n.width() == profile.bigint_bits => {}
            _ => out.push(format!(
                "2 262143 POW: expected a 262144-bit value, got {:?}",
                r.error
            )),
        }
        if r.usage.numeric_work > profile.numeric_work {
            out.push(format!(
                "2 262143 POW: numericWork {}",
                r.usage.numeric_work
            ));
        }
        let r = run("2 262144 POW");
        let msg = r.error.as_ref().map(|e| e.message.as_str());
        if msg != Some("bigintBits of 262145 exceeds the limit of 262144") {
            out.push(format!("2 262144 POW: {msg:?}"));
        }
        // (1+√2)(1+√3)…(1+√23) over the first nine primes has exactly 2^9 = 512 terms.
        let primes = [2, 3, 5, 7, 11, 13, 17, 19, 23];
        let mut product = String::from("1");
        for p in primes {
            product.push_str(&format!(" 1 {p} SQRT + *"));
        }
        let r = run(&product);
        match (&r.error, r.stack.first().and_then(Value::as_number)) {
            (None, Some(n)) if n.term_count() == profile.algebraic_terms => {}
            _ => out.push(format!("512-term product: got {:?}", r.error)),
        }
        let r = run(&format!("{product} 1 29 SQRT + *"));
        let msg = r.error.as_ref().map(|e| e.message.as_str());
        if msg != Some("algebraicTerms of 1024 exceeds the limit of 512") {
            out.push(format!("1024-term product: {msg:?}"));
        }
        out
    });
    assert!(found.is_empty(), "{}", found.join("\n"));
}
