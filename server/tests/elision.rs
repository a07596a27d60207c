//! Engine-side value-stack elision (MCP-36, MCP-52, MCP-53; docs/mcp/envelope.md): slot costs are exact,
//! selection walks from the top, huge shared values are priced by their distinct
//! structure, and the figures the specification quotes hold.

use ajisai_core::display::display;
use ajisai_core::engine::{compute, ComputeReport, Options};
use ajisai_core::envelope::{compute_json, compute_json_fitted, compute_json_within, write_node};
use ajisai_core::json::{quoted, HostFields};
use ajisai_core::render::{
    plan, ElidedRun, Elision, Fit, Piece, Sizer, ERROR_STACK_BUDGET, VALUE_STACK_BUDGET,
};
use ajisai_core::{Int, NilReason, Profile, Rat, Value};
use serde_json::Value as Json;

fn link() {
    ajisai_numerics_pure::link();
    ajisai_words::link();
}

fn run(source: &str) -> ComputeReport {
    link();
    compute(source, &Options::new(Profile::MCP_LOCAL_STDIO))
}

const NO_HOST: HostFields = HostFields::NONE;

/// The cost of a slot measured by rendering it whole.
fn rendered_cost(v: &Value) -> u64 {
    let mut node = String::new();
    write_node(&mut node, v);
    (node.len() + quoted(&display(v)).len()) as u64
}

fn cost(v: &Value) -> u64 {
    Sizer::new().size(v).cost()
}

fn top(source: &str) -> Value {
    let r = run(source);
    assert!(r.error.is_none(), "{source}: {:?}", r.error);
    r.stack.last().cloned().expect("a value")
}

#[test]
fn the_figures_of_mcp_53_hold() {
    let v4999 = top("0 4999 RANGE");
    assert_eq!(cost(&v4999), 357_812);
    assert_eq!(rendered_cost(&v4999), 357_812);
    let v7000 = top("0 7000 RANGE");
    assert_eq!(cost(&v7000), 501_884);
    assert_eq!(rendered_cost(&v7000), 501_884);
    // The largest whole `0 N RANGE` under the value-stack budget is N = 6287.
    assert!(cost(&top("0 6287 RANGE")) <= VALUE_STACK_BUDGET);
    assert!(cost(&top("0 6288 RANGE")) > VALUE_STACK_BUDGET);
    // A vector of 5,000 small integers arrives whole; 7,001 does not.
    let whole = compute_json_within(&run("0 4999 RANGE"), VALUE_STACK_BUDGET, &NO_HOST);
    assert_eq!((whole.kept_slots, whole.elided_slots), (1, 0));
    assert!(!whole.json.contains("stackElided"));
}

#[test]
fn the_appendix_envelope_of_an_elided_vector_is_exact() {
    let report = run("0 7000 RANGE 1 2 ADD");
    let r = compute_json_within(&report, VALUE_STACK_BUDGET, &NO_HOST);
    assert_eq!((r.kept_slots, r.elided_slots), (1, 1));
    let expected = concat!(
        r#"{"schemaVersion":9,"status":"ok","outcome":"value","specificationVersion":"1.0.0-beta.2","#,
        r#""stack":[{"type":"vector","value":null,"elided":{"reason":"valueStackBudget","elements":7001,"approxBytes":501884,"#,
        r#""head":[{"type":"number","value":{"numerator":"0","denominator":"1"}},{"type":"number","value":{"numerator":"1","denominator":"1"}},"#,
        r#"{"type":"number","value":{"numerator":"2","denominator":"1"}},{"type":"number","value":{"numerator":"3","denominator":"1"}},"#,
        r#"{"type":"number","value":{"numerator":"4","denominator":"1"}}],"#,
        r#""tail":[{"type":"number","value":{"numerator":"6996","denominator":"1"}},{"type":"number","value":{"numerator":"6997","denominator":"1"}},"#,
        r#"{"type":"number","value":{"numerator":"6998","denominator":"1"}},{"type":"number","value":{"numerator":"6999","denominator":"1"}},"#,
        r#"{"type":"number","value":{"numerator":"7000","denominator":"1"}}]}},"#,
        r#"{"type":"number","value":{"numerator":"3","denominator":"1"}}],"#,
        r#""stackDisplay":["<elided vector of 7001 elements, ~501884 bytes>","3/1"],"#,
        r#""stackElided":{"reason":"valueStackBudget","budgetBytes":450560,"slots":[{"index":0,"elements":7001,"approxBytes":501884}]},"#,
        r#""output":[],"resourceUsage":{"executionSteps":2,"numericWork":1,"collectionWork":119017}}"#
    );
    assert_eq!(r.json, expected);
}

#[test]
fn an_error_result_is_fitted_into_the_error_budget() {
    let report = run("0 7000 RANGE 1 0 1 GET");
    assert!(report.error.is_some());
    let r = compute_json_within(&report, ERROR_STACK_BUDGET, &NO_HOST);
    let j: Json = serde_json::from_str(&r.json).unwrap();
    assert_eq!(j["status"], "error");
    assert_eq!(j["stackElided"]["reason"], "errorStackBudget");
    assert_eq!(j["stackElided"]["budgetBytes"], 65_536);
    assert_eq!(j["stack"][0]["elided"]["reason"], "errorStackBudget");
    assert_eq!(j["stack"][0]["elided"]["approxBytes"], 501_884);
    // The small slots above arrive whole.
    assert_eq!(r.kept_slots, report.stack.len() - 1);
    let keys: Vec<&str> = j.as_object().unwrap().keys().map(String::as_str).collect();
    let at = |k: &str| keys.iter().position(|x| *x == k).unwrap();
    assert!(at("stackDisplay") < at("stackElided") && at("stackElided") < at("output"));
}

#[test]
fn selection_walks_from_the_top_and_keeps_what_fits() {
    // Three slots: small, huge, small. The huge one is elided, both small ones kept,
    // and the budget left after the top slot is what the lower slots compete for.
    let report = run("1 0 7000 RANGE 2");
    let costs: Vec<u64> = report.stack.iter().map(cost).collect();
    let budget = costs[2] + costs[0];
    let p = plan(&report.stack, &Fit::mcp(budget));
    assert_eq!(
        p.pieces,
        vec![
            Piece::Kept(0),
            Piece::Elided(Elision {
                index: 1,
                kind: "vector",
                elements: Some(7001),
                approx_bytes: costs[1],
                algebraic_terms: None,
                preview: None,
            }),
            Piece::Kept(2),
        ]
    );
    // One byte less: the bottom slot no longer fits after the top one is paid, and the
    // two elided slots beneath the top form one run.
    let p = plan(&report.stack, &Fit::mcp(budget - 1));
    assert_eq!(
        p.pieces,
        vec![
            Piece::Run(ElidedRun {
                start: 0,
                count: 2,
                approx_bytes: costs[0] + costs[1]
            }),
            Piece::Kept(2),
        ]
    );
    // Zero budget elides everything into one run, and the envelope still parses.
    let r = compute_json_within(&report, 0, &NO_HOST);
    assert_eq!((r.kept_slots, r.elided_slots), (0, 3));
    let j: Json = serde_json::from_str(&r.json).unwrap();
    let total: u64 = costs.iter().sum();
    assert_eq!(
        j["stackDisplay"],
        serde_json::json!([format!("<elided 3 slots, ~{total} bytes>")])
    );
    assert_eq!(
        j["stack"],
        serde_json::json!([{"type":"elidedRun","count":3,"approxBytes":total}])
    );
    assert_eq!(
        j["stackElided"],
        serde_json::json!({"reason":"valueStackBudget","budgetBytes":0,"slots":[],"runs":[{"start":0,"count":3,"approxBytes":total}]})
    );
    // A single elided slot keeps its own record.
    let r = compute_json_within(&report, costs[2] + costs[1], &NO_HOST);
    let j: Json = serde_json::from_str(&r.json).unwrap();
    assert_eq!(
        j["stackDisplay"][0],
        format!("<elided number, ~{} bytes>", costs[0])
    );
    assert_eq!(j["stack"][0]["type"], "number");
    assert!(j["stack"][0]["value"].is_null());
    assert!(j["stack"][0].get("semantics").is_none());
}

/// The elided slot of `source`'s stack at `index` under a stack budget of `budget` bytes.
fn elided_slot(source: &str, budget: u64, index: usize) -> Json {
    let r = compute_json_within(&run(source), budget, &NO_HOST);
    let j: Json = serde_json::from_str(&r.json).expect("JSON");
    j["stack"][index].clone()
}

/// Envelope 9: an elided Vector's record shows its first and last elements, whole, and a
/// side stops at an element too large for a preview; the two never overlap.
#[test]
fn an_elided_vector_shows_its_first_and_last_elements() {
    let node = |n: i64| serde_json::json!({"type":"number","value":{"numerator":n.to_string(),"denominator":"1"}});
    let slot = elided_slot("1 10000 RANGE", VALUE_STACK_BUDGET, 0);
    assert_eq!(slot["elided"]["elements"], 10_000);
    assert_eq!(
        slot["elided"]["head"],
        serde_json::json!((1..=5).map(node).collect::<Vec<_>>())
    );
    assert_eq!(
        slot["elided"]["tail"],
        serde_json::json!((9996..=10_000).map(node).collect::<Vec<_>>())
    );
    // Seven elements: five from the front and the two left from the back.
    let slot = elided_slot("1 7 RANGE", 0, 0);
    assert_eq!(
        slot["elided"]["head"],
        serde_json::json!((1..=5).map(node).collect::<Vec<_>>())
    );
    assert_eq!(
        slot["elided"]["tail"],
        serde_json::json!([node(6), node(7)])
    );
    // Three elements: all in the head, no tail.
    let slot = elided_slot("1 3 RANGE", 0, 0);
    assert_eq!(
        slot["elided"]["head"],
        serde_json::json!([node(1), node(2), node(3)])
    );
    assert!(slot["elided"].get("tail").is_none(), "{slot}");
    // A first element of ~2 KB: no head, and the tail stops before it.
    let slot = elided_slot("0 300 RANGE 1 2 3 4 COLLECT", 0, 0);
    assert!(slot["elided"].get("head").is_none(), "{slot}");
    assert_eq!(
        slot["elided"]["tail"],
        serde_json::json!([node(1), node(2), node(3)])
    );
    // An empty Vector, a number and a code block have none.
    for source in ["[ ]", "7", "{ 1 2 }", "2 SQRT"] {
        let slot = elided_slot(source, 0, 0);
        assert!(slot["elided"].get("head").is_none(), "{source}: {slot}");
        assert!(slot["elided"].get("tail").is_none(), "{source}: {slot}");
    }
    // An algebraic element is previewed as every node is: exact terms and approximation.
    let slot = elided_slot("2 SQRT 3 SQRT 2 COLLECT", 0, 0);
    assert_eq!(
        slot["elided"]["head"][0]["semantics"]["approximate"], true,
        "{slot}"
    );
}

/// Envelope 9: an elided String shows its first and last 64 characters, or the whole text
/// when it has at most 128.
#[test]
fn an_elided_string_shows_its_ends() {
    let slot = elided_slot("0 99999 RANGE JSON-ENCODE", VALUE_STACK_BUDGET, 0);
    assert_eq!(slot["type"], "string");
    let head = slot["elided"]["head"].as_str().expect("a head");
    let tail = slot["elided"]["tail"].as_str().expect("a tail");
    assert_eq!(head.chars().count(), 64);
    assert!(head.starts_with("[0,1,2,3"), "{head}");
    assert_eq!(tail.chars().count(), 64);
    assert!(tail.ends_with("99998,99999]"), "{tail}");
    // Characters, not bytes: a multi-byte text is cut between characters.
    let slot = elided_slot("0 99 RANGE { 'あいうえお' } MAP JSON-ENCODE", 0, 0);
    let head = slot["elided"]["head"].as_str().expect("a head");
    assert_eq!(head.chars().count(), 64);
    assert!(head.starts_with("[\"あいうえお\",\"あ"), "{head}");
    let tail = slot["elided"]["tail"].as_str().expect("a tail");
    assert_eq!(tail.chars().count(), 64);
    assert!(tail.ends_with("\"あいうえお\"]"), "{tail}");
    let slot = elided_slot("'short text'", 0, 0);
    assert_eq!(slot["elided"]["head"], "short text");
    assert!(slot["elided"].get("tail").is_none(), "{slot}");
}

/// The previews of one result measure at most 8 KiB together, given from the top down: a
/// stack of many elided Vectors previews the top ones and not the bottom ones.
#[test]
fn previews_share_one_budget_from_the_top_down() {
    // One Vector bound once and pushed 200 times, each above a small kept slot (so that
    // each is a single elided slot, not part of a run).
    let source = format!("0 7000 RANGE 'V' BIND {}", "V 1 ".repeat(200));
    let report = run(&source);
    assert!(report.error.is_none(), "{:?}", report.error);
    let r = compute_json_within(&report, VALUE_STACK_BUDGET, &NO_HOST);
    let j: Json = serde_json::from_str(&r.json).expect("JSON");
    let stack = j["stack"].as_array().expect("a stack");
    let previewed: Vec<bool> = stack
        .iter()
        .filter(|n| n.get("elided").is_some())
        .map(|n| n["elided"].get("head").is_some())
        .collect();
    assert!(
        previewed.len() > 100,
        "{} single elided slots",
        previewed.len()
    );
    assert!(
        previewed.last() == Some(&true),
        "the top-most elided slot has its preview"
    );
    assert!(
        previewed.first() == Some(&false),
        "the bottom-most has none"
    );
    // Once a slot goes without, every one beneath it does too (equal Vectors here).
    let first_with = previewed.iter().position(|p| *p).expect("some previews");
    assert!(previewed[first_with..].iter().all(|p| *p));
    let preview_bytes: usize = stack
        .iter()
        .filter_map(|n| n.get("elided"))
        .map(|e| {
            ["head", "tail"]
                .iter()
                .filter_map(|k| e.get(*k))
                .map(|p| p.to_string().len())
                .sum::<usize>()
        })
        .sum();
    assert!(
        preview_bytes as u64 <= ajisai_core::render::PREVIEW_BUDGET,
        "{preview_bytes} bytes of previews"
    );
}

#[test]
fn an_algebraic_slot_reports_its_terms() {
    let report = run("2 SQRT 3 SQRT ADD 5 SQRT ADD");
    let r = compute_json_within(&report, 10, &NO_HOST);
    let j: Json = serde_json::from_str(&r.json).unwrap();
    let c = cost(&report.stack[0]);
    assert_eq!(
        j["stack"][0],
        serde_json::json!({"type":"number","value":null,"elided":{"reason":"valueStackBudget","approxBytes":c,"algebraicTerms":3}})
    );
    assert_eq!(
        j["stackDisplay"][0],
        format!("<elided number of 3 terms, ~{c} bytes>")
    );
    assert_eq!(
        j["stackElided"]["slots"][0],
        serde_json::json!({"index":0,"approxBytes":c,"algebraicTerms":3})
    );
}

#[test]
fn without_elision_the_fitted_envelope_equals_the_plain_one() {
    for source in [
        "1 2 ADD",
        "2 SQRT [ 1 'x\"y' { 2 | 3 } NIL TRUE ] 1 0 DIV",
        "[ 1 2 ] 'a' PRINT",
        "1 FOO",
        "0 100001 RANGE",
        "",
    ] {
        let report = run(source);
        let plain = compute_json(&report, &NO_HOST);
        let within = compute_json_within(&report, u64::MAX, &NO_HOST);
        assert_eq!(within.elided_slots, 0, "{source}");
        assert_eq!(within.kept_slots, report.stack.len());
        assert_eq!(within.json, plain, "{source}");
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Leaves of every kind, algebraic numbers and wide integers included.
fn leaves() -> Vec<Value> {
    let mut out = Vec::new();
    for source in [
        "2 SQRT",
        "1 2 DIV SQRT NEG",
        "2 SQRT 3 SQRT SUB 7 ADD",
        "2 SQRT 3 SQRT ADD 5 SQRT ADD 7 SQRT ADD 11 SQRT ADD",
        "10 30 POW 2 SQRT MUL",
        "1 1000000000000 DIV 2 SQRT MUL",
        "-7 3 DIV",
        "2 200 POW NEG 3 77 POW DIV",
        "10 19 POW",
        "10 19 POW 1 SUB",
        "10 40 POW NEG",
        "'a\tb\\c \"q\" é ✓ \u{1}'",
        "''",
        "{ 1 'x' [ y ] { z | 2 } ^ 3\n4 }",
        "{ }",
        "NIL",
        "1 0 DIV",
        "TRUE",
        "FALSE",
        "[ ]",
    ] {
        let r = run(source);
        if let (None, Some(v)) = (&r.error, r.stack.last()) {
            out.push(v.clone());
        }
    }
    assert!(out.len() >= 18, "most leaf programs run");
    out
}

fn random_value(g: &mut Gen, leaves: &[Value], depth: u32) -> Value {
    if depth == 0 || g.below(3) == 0 {
        return match g.below(4) {
            0 => Value::num(Rat::new(
                Int::from(g.next() as i64 >> g.below(64)),
                Int::from((g.below(1000) + 1) as i64),
            )),
            _ => leaves[g.below(leaves.len() as u64) as usize].clone(),
        };
    }
    let n = g.below(6);
    Value::vector((0..n).map(|_| random_value(g, leaves, depth - 1)).collect())
}

#[test]
fn cost_equals_the_rendered_bytes_of_random_values() {
    let leaves = leaves();
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    // The sizer borrows what it memoizes, so the values outlive it.
    let values: Vec<Value> = (0..400).map(|_| random_value(&mut g, &leaves, 5)).collect();
    let mut sizer = Sizer::new();
    for v in &values {
        let s = sizer.size(v);
        assert_cost_bounds_rendered(s.cost(), v);
        assert_eq!(s.depth, v.depth() as u64);
        // A fresh sizer agrees with the one that memoized earlier values.
        assert_eq!(Sizer::new().size(v), s);
    }
    for v in &leaves {
        assert_cost_bounds_rendered(cost(v), v);
    }
}

/// The bytes an algebraic node's approximation may be overestimated by: its numerator is
/// sized from an upper bound of |value|·10⁹ (at most one digit too many, plus the sign
/// and the ten digits of the 10⁹ factor) and its denominator at the bound's ten digits,
/// without computing it (docs/decisions.md).
const ALGEBRAIC_SLACK: u64 = 24;

/// `cost` is the rendered bytes of `v` exactly when `v` holds no algebraic Number, and
/// otherwise at least those bytes and at most [`ALGEBRAIC_SLACK`] more per algebraic node.
fn assert_cost_bounds_rendered(cost: u64, v: &Value) {
    let mut node = String::new();
    write_node(&mut node, v);
    let algebraic = node.matches("\"approximate\":true").count() as u64;
    let rendered = rendered_cost(v);
    if algebraic == 0 {
        assert_eq!(cost, rendered, "{}", display(v));
    } else {
        assert!(
            rendered <= cost && cost <= rendered + ALGEBRAIC_SLACK * algebraic,
            "{}: cost {cost}, rendered {rendered}, {algebraic} algebraic nodes",
            display(v)
        );
    }
}

#[test]
fn decimal_lengths_are_exact_around_powers_of_ten() {
    link();
    let mut sizer = Sizer::new();
    let ten = Int::from(10i64);
    for k in (15u64..400).chain([1000, 4000, 20_000]) {
        let p = ten.pow(k);
        for delta in [-1i64, 0, 1] {
            let x = p.add(&Int::from(delta));
            for v in [x.clone(), x.neg()] {
                let got = sizer.int_len(&v);
                assert_eq!(got, v.to_string().len() as u64, "10^{k}{delta:+}");
            }
        }
    }
    for b in [63u64, 64, 65, 127, 128, 129, 1000, 262_144] {
        let x = Int::from(2i64).pow(b);
        assert_eq!(sizer.int_len(&x), x.to_string().len() as u64, "2^{b}");
        let y = x.sub(&Int::ONE);
        assert_eq!(sizer.int_len(&y), y.to_string().len() as u64, "2^{b}-1");
    }
}

/// `[ v v ]` repeated: 2^levels copies of `v` sharing one chain of Vectors.
fn doubled(mut v: Value, levels: u32) -> Value {
    for _ in 0..levels {
        v = Value::vector(vec![v.clone(), v]);
    }
    v
}

#[test]
fn huge_shared_values_are_priced_by_their_distinct_structure() {
    link();
    let base = Value::vector(vec![Value::num(1), Value::num(22), Value::str("x")]);
    let base_size = Sizer::new().size(&base);
    // Sizes of `[ v v ]` follow from v's: node 2n + 28 + 1, display 2d + 3 + 2.
    let mut expect = base_size;
    for _ in 0..40 {
        expect.node = 2 * expect.node + 28 + 1;
        expect.display = 2 * expect.display + 3 + 2;
        expect.depth += 1;
    }
    let v = doubled(base.clone(), 40);
    let mut sizer = Sizer::new();
    assert_eq!(sizer.size(&v), expect);
    assert_eq!(
        sizer.vectors_walked(),
        41,
        "each distinct Vector is walked once"
    );
    // 3 · 2^80 leaves: the sizes saturate instead of overflowing.
    let huge = doubled(base, 80);
    let mut sizer = Sizer::new();
    let s = sizer.size(&huge);
    assert_eq!(s.cost(), u64::MAX);
    assert_eq!(sizer.vectors_walked(), 81);
    let report = ComputeReport {
        stack: vec![huge, Value::num(3)],
        output: Vec::new(),
        error: None,
        interrupted: false,
        usage: Default::default(),
        contract_decls: None,
        interrupt: None,
        interrupted_deep: None,
    };
    let r = compute_json_fitted(
        &report,
        &Fit {
            stack_budget: VALUE_STACK_BUDGET,
            max_depth: u64::MAX,
        },
        &NO_HOST,
    );
    assert_eq!((r.kept_slots, r.elided_slots), (1, 1));
    assert!(r.json.contains(&format!(
        "\"stackDisplay\":[\"<elided vector of 2 elements, ~{} bytes>\",\"3/1\"]",
        u64::MAX
    )));
}

#[test]
fn a_program_building_a_shared_value_is_priced_quickly() {
    // Each `'V' BIND V V 2 COLLECT` doubles the leaves by sharing: 2^17 after 16
    // rounds, about 8 MB rendered, within the profile's collectionWork.
    let source = format!("[ 1 2 ]{}", " 'V' BIND V V 2 COLLECT".repeat(16));
    let report = run(&source);
    assert!(report.error.is_none(), "{:?}", report.error);
    let mut sizer = Sizer::new();
    let size = sizer.size(&report.stack[0]);
    assert_eq!(sizer.vectors_walked(), 17);
    let mut expect = Sizer::new().size(&top("[ 1 2 ]"));
    for _ in 0..16 {
        expect.node = 2 * expect.node + 28 + 1;
        expect.display = 2 * expect.display + 3 + 2;
        expect.depth += 1;
    }
    assert_eq!(size, expect);
    assert!(size.cost() > 7_000_000);
    let r = compute_json_within(&report, VALUE_STACK_BUDGET, &NO_HOST);
    assert_eq!(r.elided_slots, 1);
    assert!(r.json.len() < 1000);
}

#[test]
fn values_deeper_than_the_profile_nesting_are_elided() {
    let deep = |d: usize| {
        let mut v = Value::num(1);
        for _ in 0..d {
            v = Value::vector(vec![v]);
        }
        v
    };
    let report = ComputeReport {
        stack: vec![deep(33), deep(32), Value::Nil(NilReason::Literal)],
        output: Vec::new(),
        error: None,
        interrupted: false,
        usage: Default::default(),
        contract_decls: None,
        interrupt: None,
        interrupted_deep: None,
    };
    let r = compute_json_within(&report, VALUE_STACK_BUDGET, &NO_HOST);
    assert_eq!((r.kept_slots, r.elided_slots), (2, 1));
    let j: Json = serde_json::from_str(&r.json).unwrap();
    assert_eq!(j["stackElided"]["slots"][0]["index"], 0);
    assert_eq!(j["stack"][0]["elided"]["elements"], 1);
    assert_eq!(j["outcome"], "nil:literal");
    // The CLI elides nothing.
    assert!(!compute_json(&report, &NO_HOST).contains("elided"));
    // 200,000 levels: priced and elided without native recursion.
    let report = ComputeReport {
        stack: vec![deep(200_000)],
        ..report
    };
    let r = compute_json_within(&report, u64::MAX, &NO_HOST);
    assert_eq!(r.elided_slots, 1);
}
