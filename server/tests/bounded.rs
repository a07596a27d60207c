//! Every call bounded (the boundedness issue), against the live server over real stdio
//! with a raw JSON-RPC client: hostile programs answer with a value, a named language
//! error or a host error, inside the server's memory, and the server keeps serving.
//! Each measurement of peak memory runs in a fresh server process (VmHWM only grows).

mod raw_support;

use raw_support::RawServer;
use serde_json::json;

/// 96 MB, the peak the issue allows the whole server for `{ 1 F } 'F' DEF F`.
const PEAK_KIB_RUN_ELISION: u64 = 96 * 1000;

#[test]
fn a_stack_of_100000_slots_answers_its_error_with_one_run_record() {
    let mut server = RawServer::started(&[]);
    let env = server.compute(1, "{ 1 F } 'F' DEF F");
    assert_eq!(env["schemaVersion"], 6);
    assert_eq!(env["outcome"], "error:resourceLimitExceeded", "{env}");
    assert_eq!(env["error"]["resource"], "executionSteps");
    assert_eq!(
        env["message"],
        "executionSteps of 100001 exceeds the limit of 100000"
    );
    // The top slots arrive whole within the 64 KiB error budget; everything beneath
    // them is one run.
    let stack = env["stack"].as_array().expect("a stack");
    let display = env["stackDisplay"].as_array().expect("a display");
    assert_eq!(stack.len(), display.len());
    let run = &stack[0];
    assert_eq!(run["type"], "elidedRun", "{run}");
    let count = run["count"].as_u64().expect("a count");
    let bytes = run["approxBytes"].as_u64().expect("a size");
    // Each `1/1` slot costs its node's bytes and its JSON-encoded display's (MCP-53).
    let per_slot = (stack[1].to_string().len() + display[1].to_string().len()) as u64;
    assert_eq!(bytes, count * per_slot);
    assert_eq!(count as usize + stack.len() - 1, 99_999);
    assert!(stack[1..].iter().all(|n| n["type"] == "number"));
    assert_eq!(
        display[0],
        json!(format!("<elided {count} slots, ~{bytes} bytes>"))
    );
    assert_eq!(
        env["stackElided"],
        json!({"reason":"errorStackBudget","budgetBytes":65536,"slots":[],
               "runs":[{"start":0,"count":count,"approxBytes":bytes}]})
    );
    let kept_cost: u64 = per_slot * (stack.len() as u64 - 1);
    assert!(
        kept_cost <= 65_536 && kept_cost + per_slot > 65_536,
        "{kept_cost}"
    );
    // The server stays small and keeps serving.
    let peak = server.peak_kib();
    assert!(peak < PEAK_KIB_RUN_ELISION, "peak {peak} KiB");
    let env = server.compute(2, "1 2 ADD");
    assert_eq!(env["stackDisplay"], json!(["3/1"]));
}
