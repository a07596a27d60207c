//! Contracts end to end: inference of User Word contracts
//! (docs/contracts.md#how-inference-works-and-its-gaps), the `#:contract` directive and its
//! verification (MCP-66/68/69; docs/contracts.md#the-directive, docs/mcp/envelope.md,
//! docs/mcp/tools.md), the static check's phase 3 (docs/contracts.md#what-check-promises),
//! `infer_contracts` (MCP-70) and the envelopes.
//!
//! Bodies use Words of every family only where the spec's own examples do; most
//! cases are built from `NOT`, `AND`, `BIND`, `COND`, `EXEC` and `REFLECT`.

use ajisai_core::code::Program;
use ajisai_core::compile::parse;
use ajisai_core::contract::{
    check_declarations, infer_program, parse_directive, ContractDecls, Declared, Effect, Gap,
    Inference, ProgramDefinitions, Severity, Verdict, WordContract,
};
use ajisai_core::engine::{check, compute, infer_contracts, Options};
use ajisai_core::envelope::{check_json, compute_json, infer_json};
use ajisai_core::lexer::DirectiveLine;
use ajisai_core::word::Field;
use ajisai_core::Profile;

fn options() -> Options {
    ajisai_numerics_pure::link();
    ajisai_words::link();
    Options::new(Profile::MCP_LOCAL_STDIO)
}

fn program(source: &str) -> Program {
    let o = options();
    parse(source, &o.profile, 0).expect("test programs parse")
}

/// The inferred (inputs, outputs) or gap, and field, of `name` in `source`.
fn inferred(source: &str, name: &str) -> (Result<(u64, u64), Gap>, Option<Field>) {
    let p = program(source);
    let defs = ProgramDefinitions::scan(&[], &p.block);
    let mut inf = Inference::new(&defs);
    let i = inf
        .infer(name)
        .unwrap_or_else(|| panic!("{name} is defined in `{source}`"));
    (i.effect.map(|e| (e.inputs, e.outputs)), i.field)
}

fn effect(source: &str, name: &str) -> Result<(u64, u64), Gap> {
    inferred(source, name).0
}

fn field(source: &str, name: &str) -> Field {
    inferred(source, name)
        .1
        .expect("a literal body has a field")
}

fn decls(source: &str) -> ContractDecls {
    check_declarations(&program(source), &[]).expect("the source has #:contract lines")
}

/// The first error finding's message, or panic.
fn first_error(source: &str) -> String {
    let d = decls(source);
    d.findings
        .iter()
        .find(|f| f.severity == Severity::Error)
        .map(|f| f.message.clone())
        .unwrap_or_else(|| panic!("`{source}` has no error finding: {d:?}"))
}

// ---------------------------------------------------------------------------
// Stack-effect inference.
// ---------------------------------------------------------------------------

#[test]
fn literals_and_fixed_words() {
    assert_eq!(effect("{ 1 } 'W' DEF", "W"), Ok((0, 1)));
    assert_eq!(effect("{ 1 'a' [ 1 2 ] { x } } 'W' DEF", "W"), Ok((0, 4)));
    assert_eq!(effect("{ NOT } 'W' DEF", "W"), Ok((1, 1)));
    assert_eq!(effect("{ AND } 'W' DEF", "W"), Ok((2, 1)));
    assert_eq!(effect("{ AND AND } 'W' DEF", "W"), Ok((3, 1)));
    assert_eq!(effect("{ TRUE AND } 'W' DEF", "W"), Ok((1, 1)));
    assert_eq!(effect("{ PRINT } 'W' DEF", "W"), Ok((1, 0)));
    assert_eq!(effect("{ NIL? } 'W' DEF", "W"), Ok((1, 2)));
    assert_eq!(effect("{ NOT\nNOT\n\nNOT } 'W' DEF", "W"), Ok((1, 1)));
    assert_eq!(effect("{ PRINT PRINT 1 } 'W' DEF", "W"), Ok((2, 1)));
}

#[test]
fn keep_forms() {
    // Ordinary Words leave their operands below their results.
    assert_eq!(effect("{ KEEP AND } 'W' DEF", "W"), Ok((2, 3)));
    assert_eq!(effect("{ KEEP KEEP NOT } 'W' DEF", "W"), Ok((1, 2)));
    // The flag waits past literals for the next Word.
    assert_eq!(effect("{ KEEP 'x' AND } 'W' DEF", "W"), Ok((1, 3)));
    // TRUE is a Word: it takes the flag.
    assert_eq!(effect("{ KEEP TRUE AND } 'W' DEF", "W"), Ok((1, 1)));
    // BIND, DEF, DEL, PRINT: (i, i).
    assert_eq!(effect("{ KEEP PRINT } 'W' DEF", "W"), Ok((1, 1)));
    assert_eq!(effect("{ 'X' KEEP BIND } 'W' DEF", "W"), Ok((1, 2)));
    // NIL? and NIL-REASON retain anyway.
    assert_eq!(effect("{ KEEP NIL? } 'W' DEF", "W"), Ok((1, 2)));
    assert_eq!(effect("{ KEEP NIL-REASON } 'W' DEF", "W"), Ok((1, 2)));
    // Higher-order Words keep only the collection: MAP (2, 2), FOLD (3, 2).
    assert_eq!(effect("{ KEEP { NOT } MAP } 'W' DEF", "W"), Ok((1, 2)));
    assert_eq!(effect("{ KEEP { AND } FOLD } 'W' DEF", "W"), Ok((2, 2)));
    // COND: one more output.
    assert_eq!(
        effect("{ KEEP { IDLE | 1 } COND } 'W' DEF", "W"),
        Ok((1, 2))
    );
    // EXEC and User Words under KEEP are not modelled.
    assert_eq!(
        effect("{ KEEP { NOT } EXEC } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(
        effect("{ NOT } 'N' DEF { KEEP N } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
    // A binding reference consumes the flag.
    assert_eq!(effect("{ 'X' BIND KEEP X NOT } 'W' DEF", "W"), Ok((1, 1)));
    // A flag left at the end of the body changes nothing.
    assert_eq!(effect("{ NOT KEEP } 'W' DEF", "W"), Ok((1, 1)));
}

#[test]
fn cond_with_preceding_block_literals() {
    assert_eq!(
        effect("{ { 0 > | 1 - CD } { IDLE | 'done' } COND } 'CD' DEF", "CD"),
        Ok((1, 1))
    );
    assert_eq!(
        effect("{ { NOT } { 1 } { IDLE } { 2 } COND } 'W' DEF", "W"),
        Ok((1, 1))
    );
    assert_eq!(effect("{ 5 { IDLE | 1 } COND } 'W' DEF", "W"), Ok((0, 1)));
    // One clause per line is the conventional layout; it is the same COND.
    assert_eq!(
        effect("{\n  { NOT | 1 }\n  { IDLE | 2 }\n  COND\n} 'W' DEF", "W"),
        Ok((1, 1))
    );
    // COND without preceding block literals is data-dependent.
    assert_eq!(
        effect("{ COND } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(
        effect("{ 'c' BIND C COND } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
}

#[test]
fn collect_range_and_exec_forms() {
    assert_eq!(effect("{ 3 COLLECT } 'W' DEF", "W"), Ok((3, 1)));
    assert_eq!(effect("{ 1 COLLECT } 'W' DEF", "W"), Ok((1, 1)));
    assert_eq!(effect("{ 3.0 COLLECT } 'W' DEF", "W"), Ok((3, 1)));
    assert_eq!(effect("{ KEEP 2 COLLECT } 'W' DEF", "W"), Ok((2, 4)));
    assert_eq!(
        effect("{ 0 COLLECT } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(
        effect("{ 1/2 COLLECT } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(
        effect("{ COLLECT } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(effect("{ [ 0 5 ] RANGE } 'W' DEF", "W"), Ok((0, 1)));
    assert_eq!(effect("{ 5 RANGE } 'W' DEF", "W"), Ok((1, 1)));
    assert_eq!(
        effect("{ RANGE } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(effect("{ { NOT } EXEC } 'W' DEF", "W"), Ok((1, 1)));
    assert_eq!(
        effect("{ { PRINT PRINT 7 } EXEC } 'W' DEF", "W"),
        Ok((2, 1))
    );
    assert_eq!(
        effect("{ { { NOT } EXEC NOT } EXEC } 'W' DEF", "W"),
        Ok((1, 1))
    );
    assert_eq!(
        effect("{ EXEC } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(
        effect("{ { NOPE } EXEC } 'W' DEF", "W"),
        Err(Gap::UnresolvedWord)
    );
    assert_eq!(
        effect("{ { ^ 1 } EXEC } 'W' DEF", "W"),
        Err(Gap::UnmodelledControlFlow)
    );
}

#[test]
fn bound_names_push_one_value() {
    assert_eq!(effect("{ 'V' BIND V V } 'W' DEF", "W"), Ok((1, 2)));
    assert_eq!(effect("{ [ 'A' 'B' ] BIND B A } 'W' DEF", "W"), Ok((1, 2)));
    assert_eq!(effect("{ [ A B ] BIND B A } 'W' DEF", "W"), Ok((1, 2)));
    assert_eq!(effect("{ 'v' BIND V } 'W' DEF", "W"), Ok((1, 1)));
    // A block run by EXEC sees the body's bindings.
    assert_eq!(effect("{ 'V' BIND { V V } EXEC } 'W' DEF", "W"), Ok((1, 2)));
    // Names bound only later are not bound yet.
    assert_eq!(
        effect("{ V 'V' BIND } 'W' DEF", "W"),
        Err(Gap::UnresolvedWord)
    );
    // Only a vector literal of Strings names bindings (BIND refuses any other name
    // Vector): a Number or a NIL element binds nothing.
    assert_eq!(
        effect("{ [ 'A' 1 ] BIND A } 'W' DEF", "W"),
        Err(Gap::UnresolvedWord)
    );
    assert_eq!(
        effect("{ [ A NIL ] BIND A } 'W' DEF", "W"),
        Err(Gap::UnresolvedWord)
    );
    assert_eq!(effect("{ [ A\nB ] BIND A B } 'W' DEF", "W"), Ok((1, 2)));
}

#[test]
fn blocks_are_data() {
    assert_eq!(effect("{ { NOPE W } } 'W' DEF", "W"), Ok((0, 1)));
    // A recursive call in a COND clause body is fine.
    assert_eq!(effect("{ { IDLE | W } COND } 'W' DEF", "W"), Ok((1, 1)));
}

#[test]
fn user_words_compose() {
    let src = "{ NOT } 'N1' DEF { N1 N1 } 'N2' DEF { AND N2 } 'N3' DEF";
    assert_eq!(effect(src, "N2"), Ok((1, 1)));
    assert_eq!(effect(src, "N3"), Ok((2, 1)));
    // Forward references resolve against the whole program.
    assert_eq!(
        effect("{ LATER NOT } 'W' DEF { 1 } 'LATER' DEF", "W"),
        Ok((0, 1))
    );
    // Case and alias spellings resolve like names do.
    assert_eq!(effect("{ n1 } 'W' DEF { NOT } 'N1' DEF", "W"), Ok((1, 1)));
}

#[test]
fn last_literal_definition_wins() {
    assert_eq!(effect("{ 1 } 'W' DEF { NOT } 'W' DEF", "W"), Ok((1, 1)));
    assert_eq!(
        effect("{ NOT } 'W' DEF { { 1 } 'W' DEF } EXEC", "W"),
        Ok((0, 1))
    );
    // A computed body does not replace a literal one.
    assert_eq!(
        effect("{ NOT } 'W' DEF { 1 } 'B' BIND B 'W' DEF", "W"),
        Ok((1, 1))
    );
}

#[test]
fn gap_unresolved_word() {
    assert_eq!(effect("{ NOPE } 'W' DEF", "W"), Err(Gap::UnresolvedWord));
    assert_eq!(
        effect("{ 1 NOT IDLE } 'W' DEF", "W"),
        Err(Gap::UnresolvedWord)
    );
    assert_eq!(Gap::UnresolvedWord.id(), "gap.unresolvedWord");
}

#[test]
fn gap_recursive_dependency() {
    assert_eq!(effect("{ R } 'R' DEF", "R"), Err(Gap::RecursiveDependency));
    assert_eq!(
        effect("{ NOT R } 'R' DEF", "R"),
        Err(Gap::RecursiveDependency)
    );
    assert_eq!(
        effect("{ { R } EXEC } 'R' DEF", "R"),
        Err(Gap::RecursiveDependency)
    );
    let mutual = "{ B } 'A' DEF { A } 'B' DEF { A } 'C' DEF";
    assert_eq!(effect(mutual, "A"), Err(Gap::RecursiveDependency));
    assert_eq!(effect(mutual, "B"), Err(Gap::RecursiveDependency));
    // A caller outside the cycle depends on a Word with a gap.
    assert_eq!(effect(mutual, "C"), Err(Gap::DependencyUnknown));
    // The answer does not depend on which Word is asked first.
    let p = program(mutual);
    let defs = ProgramDefinitions::scan(&[], &p.block);
    for order in [["A", "B", "C"], ["C", "B", "A"], ["B", "C", "A"]] {
        let mut inf = Inference::new(&defs);
        let got: Vec<_> = order.iter().map(|n| inf.effect(n)).collect();
        let want: Vec<_> = order
            .iter()
            .map(|n| {
                Some(Err(if *n == "C" {
                    Gap::DependencyUnknown
                } else {
                    Gap::RecursiveDependency
                }))
            })
            .collect();
        assert_eq!(got, want, "asked in order {order:?}");
    }
    assert_eq!(Gap::RecursiveDependency.id(), "gap.recursiveDependency");
}

#[test]
fn gap_dependency_unknown() {
    assert_eq!(
        effect("{ NOPE } 'X' DEF { X NOT } 'Y' DEF", "Y"),
        Err(Gap::DependencyUnknown)
    );
    assert_eq!(
        effect("{ NOPE } 'X' DEF { X } 'Y' DEF { Y } 'Z' DEF", "Z"),
        Err(Gap::DependencyUnknown)
    );
    // A Word defined from a computed block has no known body.
    assert_eq!(
        effect("{ 1 } 'B' BIND B 'X' DEF { X } 'Y' DEF", "Y"),
        Err(Gap::DependencyUnknown)
    );
    assert_eq!(Gap::DependencyUnknown.id(), "gap.dependencyUnknown");
}

#[test]
fn gap_unmodelled_control_flow() {
    assert_eq!(
        effect("{ ^ 0 } 'V' DEF", "V"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(
        effect("{ NOT ^ 0 } 'V' DEF", "V"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(
        effect("{ 1 | 2 } 'V' DEF", "V"),
        Err(Gap::UnmodelledControlFlow)
    );
    assert_eq!(Gap::UnmodelledControlFlow.id(), "gap.unmodelledControlFlow");
}

#[test]
fn deep_and_long_inputs_do_not_recurse_natively() {
    // A block nested 20,000 deep run by EXEC at every level.
    let depth = 20_000;
    let mut src = String::from("{ ");
    src.push_str(&"{ ".repeat(depth));
    src.push_str("NOT");
    src.push_str(&" } EXEC".repeat(depth));
    src.push_str(" } 'W' DEF");
    let o = Options::new(Profile::CLI_LOCAL);
    let p = parse(&src, &o.profile, 0).expect("parses");
    let defs = ProgramDefinitions::scan(&[], &p.block);
    assert_eq!(
        Inference::new(&defs).effect("W"),
        Some(Ok(Effect {
            inputs: 1,
            outputs: 1
        }))
    );
    // A chain of 20,000 Words, each calling the next.
    let n = 20_000;
    let mut chain = String::new();
    for i in 0..n {
        chain.push_str(&format!("{{ W{} }} 'W{i}' DEF\n", i + 1));
    }
    chain.push_str(&format!("{{ NOT }} 'W{n}' DEF"));
    let p = parse(&chain, &o.profile, 0).expect("parses");
    let defs = ProgramDefinitions::scan(&[], &p.block);
    let mut inf = Inference::new(&defs);
    assert_eq!(
        inf.effect("W0"),
        Some(Ok(Effect {
            inputs: 1,
            outputs: 1
        }))
    );
    assert_eq!(inf.field("W0"), Some(Field::Closed));
}

// ---------------------------------------------------------------------------
// Field inference.
// ---------------------------------------------------------------------------

#[test]
fn field_triggers() {
    assert_eq!(field("{ NOT } 'W' DEF", "W"), Field::Closed);
    assert_eq!(field("{ SQRT } 'W' DEF", "W"), Field::Extends);
    assert_eq!(field("{ sqrt } 'W' DEF", "W"), Field::Extends);
    assert_eq!(field("{ REFLECT } 'W' DEF", "W"), Field::Extends);
    assert_eq!(field("{ 2 POW } 'W' DEF", "W"), Field::Closed);
    assert_eq!(field("{ -3 POW } 'W' DEF", "W"), Field::Closed);
    assert_eq!(field("{ 1/2 POW } 'W' DEF", "W"), Field::Extends);
    assert_eq!(field("{ POW } 'W' DEF", "W"), Field::Extends);
    assert_eq!(field("{ { NOT } MAP } 'W' DEF", "W"), Field::Closed);
    for hof in ["MAP", "FILTER", "FOLD", "ANY", "ALL"] {
        assert_eq!(
            field(&format!("{{ 'NOT' {hof} }} 'W' DEF"), "W"),
            Field::Extends,
            "{hof}"
        );
        assert_eq!(
            field(&format!("{{ {{ NOT }} {hof} }} 'W' DEF"), "W"),
            Field::Closed,
            "{hof}"
        );
    }
    // Inside a block literal the trigger still counts (the block can run).
    assert_eq!(field("{ { SQRT } } 'W' DEF", "W"), Field::Extends);
    // Directly inside a vector literal it is data; a block element is code.
    assert_eq!(field("{ [ SQRT REFLECT ] } 'W' DEF", "W"), Field::Closed);
    assert_eq!(field("{ [ 1 [ { SQRT } ] ] } 'W' DEF", "W"), Field::Extends);
    // Unresolved names contribute nothing.
    assert_eq!(field("{ NOPE } 'W' DEF", "W"), Field::Closed);
}

#[test]
fn field_is_the_least_fixpoint() {
    let src = "{ B } 'A' DEF { A REFLECT } 'B' DEF { A } 'C' DEF { D } 'D' DEF { E NOT } 'E' DEF";
    assert_eq!(field(src, "A"), Field::Extends);
    assert_eq!(field(src, "B"), Field::Extends);
    assert_eq!(field(src, "C"), Field::Extends);
    // Cycles without a trigger stay closed (least fixpoint).
    assert_eq!(field(src, "D"), Field::Closed);
    assert_eq!(field(src, "E"), Field::Closed);
    // Asked in any order, the same answers.
    let p = program(src);
    let defs = ProgramDefinitions::scan(&[], &p.block);
    let mut inf = Inference::new(&defs);
    let got: Vec<_> = ["E", "D", "C", "B", "A"]
        .iter()
        .map(|n| inf.field(n))
        .collect();
    assert_eq!(
        got,
        [
            Some(Field::Closed),
            Some(Field::Closed),
            Some(Field::Extends),
            Some(Field::Extends),
            Some(Field::Extends)
        ]
    );
}

// ---------------------------------------------------------------------------
// The directive.
// ---------------------------------------------------------------------------

fn directive(text: &str) -> Option<Result<(Option<String>, Declared), String>> {
    parse_directive(&DirectiveLine {
        line: 1,
        text: text.to_string(),
    })
    .map(|d| d.keys.map(|k| (d.name, k)))
}

#[test]
fn directive_grammar() {
    let full = directive("contract INC inputs=1 outputs=2 field=extends");
    assert_eq!(
        full,
        Some(Ok((
            Some("INC".to_string()),
            Declared {
                inputs: Some(1),
                outputs: Some(2),
                field: Some(Field::Extends)
            }
        )))
    );
    // Any order, any whitespace, one key is enough, bounds inclusive.
    assert!(matches!(
        directive("contract inc\tfield=closed   inputs=0"),
        Some(Ok(_))
    ));
    assert!(matches!(
        directive("contract INC outputs=65535"),
        Some(Ok(_))
    ));
    assert!(matches!(directive("contract INC inputs=007"), Some(Ok(_))));
    // Not a contract directive at all.
    assert_eq!(directive("digest sha256:00"), None);
    assert_eq!(directive("contracts INC inputs=1"), None);
    assert_eq!(directive(" contract INC inputs=1"), None);
    // Malformed terms.
    for bad in [
        "contract INC",
        "contract INC foo",
        "contract INC inputs = 1",
        "contract INC input=1",
        "contract INC INPUTS=1",
        "contract INC inputs=1 inputs=1",
        "contract INC inputs=-1",
        "contract INC inputs=+1",
        "contract INC inputs=65536",
        "contract INC inputs=1.0",
        "contract INC inputs=x",
        "contract INC inputs=",
        "contract INC field=open",
        "contract INC field=CLOSED",
        "contract INC inputs=1 extra",
    ] {
        assert!(
            matches!(directive(bad), Some(Err(_))),
            "{bad} must be malformed"
        );
    }
    // No NAME.
    assert_eq!(
        directive("contract").and_then(|r| r.ok()).map(|(n, _)| n),
        None
    );
    assert!(matches!(
        directive("contract inputs=1"),
        Some(Ok((None, _)))
    ));
}

#[test]
fn every_malformation_is_an_error_finding() {
    let def = "{ NOT } 'INC' DEF";
    let cases: [(&str, &str); 12] = [
        ("#:contract", "names no Word"),
        ("#:contract inputs=1", "names no Word"),
        ("#:contract NOPE inputs=1", "does not define NOPE"),
        ("#:contract ADD inputs=2", "ADD is a Core Word"),
        ("#:contract + inputs=2", "ADD is a Core Word"),
        ("#:contract INC foo", "unknown term 'foo'"),
        ("#:contract INC input=1", "unknown key"),
        (
            "#:contract INC inputs=1 inputs=1",
            "inputs is declared twice",
        ),
        (
            "#:contract INC inputs=99999",
            "not a decimal integer from 0 to 65535",
        ),
        ("#:contract INC field=open", "field=closed or field=extends"),
        ("#:contract INC", "declares no key"),
        (
            "#:contract INC inputs=1\n#:contract inc outputs=1",
            "already declared on line 1",
        ),
    ];
    for (directives, needle) in cases {
        let src = format!("{directives}\n{def}");
        let d = decls(&src);
        let errors: Vec<_> = d
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{src:?}: {d:?}");
        assert!(
            errors[0].message.starts_with("#:contract"),
            "{}",
            errors[0].message
        );
        assert!(
            errors[0].message.contains(needle),
            "{src:?}: {}",
            errors[0].message
        );
        // A malformed directive gives no declaration (the first of a duplicate pair does).
        let expected_decls = usize::from(directives.contains('\n'));
        assert_eq!(d.declarations.len(), expected_decls, "{src:?}");
        let r = check(&src, &options());
        assert_eq!(
            r.error.map(|e| e.category.id()),
            Some("contractViolation"),
            "{src:?}"
        );
    }
}

#[test]
fn a_computed_definition_does_not_count() {
    let src = "#:contract X inputs=0\n{ 1 } 'B' BIND B 'X' DEF";
    assert!(first_error(src).contains("does not define X with a literal"));
}

#[test]
fn prelude_definitions_count() {
    let p = program("#:contract P inputs=1 outputs=1\n5 P");
    let prelude = program("{ NOT } 'P' DEF");
    let d = check_declarations(&p, &[&prelude.block]).expect("one line");
    assert!(d.findings.is_empty(), "{d:?}");
    assert_eq!(d.declarations[0].verdict, Verdict::Verified);
    // Without the prelude, P is not defined.
    let d = check_declarations(&p, &[]).expect("one line");
    assert_eq!(d.findings.len(), 1);
}

#[test]
fn verification_per_key() {
    let def = "{ NOT } 'INC' DEF";
    let verified = decls(&format!(
        "#:contract INC inputs=1 outputs=1 field=closed\n{def}"
    ));
    assert!(verified.findings.is_empty());
    assert_eq!(verified.declarations.len(), 1);
    assert_eq!(verified.declarations[0].word, "INC");
    assert_eq!(verified.declarations[0].verdict, Verdict::Verified);
    assert_eq!(verified.declarations[0].gap, None);

    // The message format of docs/contracts.md#the-directive / MCP-68.
    assert_eq!(
        first_error(&format!("#:contract INC inputs=2\n{def}")),
        "#:contract INC declares inputs=2, inferred inputs=1"
    );
    assert_eq!(
        first_error(&format!("#:contract INC outputs=0\n{def}")),
        "#:contract INC declares outputs=0, inferred outputs=1"
    );
    assert_eq!(
        first_error("#:contract R field=closed\n{ REFLECT } 'R' DEF"),
        "#:contract R declares field=closed, inferred field=extends"
    );
    // field=extends only permits.
    let d = decls("#:contract N field=extends\n{ NOT } 'N' DEF");
    assert_eq!(d.declarations[0].verdict, Verdict::Verified);
    // Case-insensitive NAME; the declared Word is reported normalized.
    let d = decls("#:contract inc inputs=1\n{ NOT } 'Inc' DEF");
    assert_eq!(d.declarations[0].word, "INC");
    assert_eq!(d.declarations[0].verdict, Verdict::Verified);
}

#[test]
fn cannot_verify_is_a_note() {
    let d = decls("#:contract V inputs=1 field=closed\n{ ^ 0 } 'V' DEF");
    assert_eq!(d.findings.len(), 1);
    assert_eq!(d.findings[0].severity, Severity::Note);
    assert!(
        d.findings[0].message.contains("gap.unmodelledControlFlow"),
        "{}",
        d.findings[0].message
    );
    assert_eq!(d.declarations[0].verdict, Verdict::CannotVerify);
    assert_eq!(d.declarations[0].gap, Some(Gap::UnmodelledControlFlow));
    assert_eq!(d.error(), None);
    // A violated key outweighs a gap; the gap is reported only with cannotVerify.
    let d = decls("#:contract V inputs=1 field=closed\n{ REFLECT ^ 0 } 'V' DEF");
    assert_eq!(d.declarations[0].verdict, Verdict::Violated);
    assert_eq!(d.declarations[0].gap, None);
    // Each gap kind reaches the declaration.
    for (src, gap) in [
        ("{ NOPE } 'W' DEF", Gap::UnresolvedWord),
        ("{ W } 'W' DEF", Gap::RecursiveDependency),
        ("{ NOPE } 'X' DEF { X } 'W' DEF", Gap::DependencyUnknown),
        ("{ COND } 'W' DEF", Gap::UnmodelledControlFlow),
    ] {
        let d = decls(&format!("#:contract W outputs=1\n{src}"));
        assert_eq!(d.declarations[0].gap, Some(gap), "{src}");
    }
}

#[test]
fn the_error_quotes_the_first_finding_and_counts_the_rest() {
    let src = "{ NOT } 'INC' DEF\n#:contract INC inputs=2 outputs=3\n#:contract NOPE inputs=1\n#:contract V inputs=1\n{ ^ 1 } 'V' DEF";
    let d = decls(src);
    assert_eq!(
        d.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count(),
        3
    );
    let e = d.error().expect("errors");
    assert_eq!(e.category.id(), "contractViolation");
    assert_eq!(
        e.message,
        "contract violation: #:contract INC declares inputs=2, inferred inputs=1 (and 2 more)"
    );
    assert_eq!(e.word.as_deref(), Some("INC"));
    let pos = e.pos.expect("a position");
    assert_eq!((pos.line, pos.column), (2, 1));
    // Declarations stay in source order; the malformed one has none.
    let words: Vec<_> = d
        .declarations
        .iter()
        .map(|x| (x.word.as_str(), x.verdict))
        .collect();
    assert_eq!(
        words,
        [("INC", Verdict::Violated), ("V", Verdict::CannotVerify)]
    );
}

#[test]
fn the_first_error_without_a_name_has_no_word() {
    let e = decls("{ NOT } 'INC' DEF\n\n#:contract")
        .error()
        .expect("malformed");
    assert_eq!(e.word, None);
    assert_eq!(e.pos.map(|p| (p.line, p.column)), Some((3, 1)));
    assert_eq!(
        e.message,
        "contract violation: #:contract on line 3 names no Word; write #:contract NAME inputs=N outputs=N field=closed|extends"
    );
}

#[test]
fn other_host_directives_and_indented_lines() {
    assert!(check_declarations(&program("#:digest sha256:00\n1"), &[]).is_none());
    assert!(check_declarations(&program("1 # #:contract X inputs=1"), &[]).is_none());
    let d = decls("   #:contract N inputs=1\n{ NOT } 'N' DEF");
    assert_eq!(d.declarations[0].verdict, Verdict::Verified);
}

// ---------------------------------------------------------------------------
// Engine integration.
// ---------------------------------------------------------------------------

#[test]
fn check_runs_the_three_phases_in_order() {
    let o = options();
    // Phase 1 wins over everything.
    let r = check("#:contract INC inputs=9\n{ NOT } 'INC' DEF [", &o);
    assert_eq!(r.error.map(|e| e.category.id()), Some("malformedSource"));
    assert!(r.contract_decls.is_none());
    // Phase 2 wins over phase 3, but the declarations are still reported.
    let r = check("#:contract INC inputs=9\n{ NOT } 'INC' DEF NOPE", &o);
    assert_eq!(r.error.map(|e| e.category.id()), Some("unknownWord"));
    assert!(r.contract_decls.is_some());
    // Phase 3.
    let r = check("#:contract INC inputs=9\n{ NOT } 'INC' DEF", &o);
    let e = r.error.expect("violated");
    assert_eq!(e.category.id(), "contractViolation");
    assert_eq!(e.word.as_deref(), Some("INC"));
    // Clean.
    let r = check("#:contract INC inputs=1\n{ NOT } 'INC' DEF TRUE INC", &o);
    assert!(r.error.is_none());
    assert_eq!(
        r.contract_decls.expect("one line").declarations[0].verdict,
        Verdict::Verified
    );
    // No directive, no contractDecls.
    assert!(check("1", &o).contract_decls.is_none());
}

#[test]
fn compute_checks_declarations_before_running() {
    let o = options();
    let r = compute(
        "'hello' PRINT TRUE\n#:contract INC inputs=2\n{ NOT } 'INC' DEF INC",
        &o,
    );
    let e = r.error.as_ref().expect("violated");
    assert_eq!(e.category.id(), "contractViolation");
    assert_eq!(
        e.message,
        "contract violation: #:contract INC declares inputs=2, inferred inputs=1"
    );
    assert_eq!(e.pos.map(|p| (p.line, p.column)), Some((2, 1)));
    assert!(r.stack.is_empty());
    assert!(r.output.is_empty());
    assert_eq!(r.usage, Default::default());
    assert_eq!(r.outcome_id(), "error:contractViolation");
    assert!(r.contract_decls.is_some());

    // Notes never stop a run; the report still carries the declarations.
    let r = compute("#:contract V inputs=0\n{ ^ 1 } 'V' DEF NIL V", &o);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(
        r.contract_decls.expect("one line").declarations[0].verdict,
        Verdict::CannotVerify
    );

    // Name resolution stays lazy: an unknown name in an uncalled body is no error.
    let r = compute(
        "#:contract INC inputs=1\n{ NOT } 'INC' DEF { NOPE } 'LATER' DEF TRUE INC",
        &o,
    );
    assert!(r.error.is_none(), "{:?}", r.error);

    // Structural errors still come first.
    let r = compute("#:contract INC inputs=2\n{ NOT } 'INC' DEF ]", &o);
    assert_eq!(r.error.map(|e| e.category.id()), Some("malformedSource"));
    assert!(r.contract_decls.is_none());
}

#[test]
fn envelopes_render_contract_decls_in_order() {
    let o = options();
    let none = ajisai_core::json::HostFields::NONE;
    let r = compute("#:contract INC inputs=2\n{ NOT } 'INC' DEF", &o);
    let json = compute_json(&r, &none);
    let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
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
            "contractDecls",
            "resourceUsage"
        ]
    );
    assert_eq!(
        v["contractDecls"],
        serde_json::json!({
            "findings": [{"severity": "error", "message": "#:contract INC declares inputs=2, inferred inputs=1"}],
            "declarations": [{"word": "INC", "verdict": "violated"}]
        })
    );
    assert_eq!(
        v["error"],
        serde_json::json!({"category": "contractViolation", "word": "INC", "line": 1, "column": 1})
    );

    let r = check("#:contract V outputs=1\n{ ^ 1 } 'V' DEF", &o);
    let v: serde_json::Value = serde_json::from_str(&check_json(&r, &none)).expect("valid JSON");
    assert_eq!(v["status"], "ok");
    assert_eq!(
        v["contractDecls"]["declarations"],
        serde_json::json!([{"word": "V", "verdict": "cannotVerify", "gap": "gap.unmodelledControlFlow"}])
    );
    assert_eq!(v["contractDecls"]["findings"][0]["severity"], "note");

    let r = compute("1", &o);
    assert!(!compute_json(&r, &none).contains("contractDecls"));
}

#[test]
fn infer_contracts_lists_source_words() {
    let o = options();
    let r = infer_contracts(
        "#:contract B inputs=9\n{ NOT } 'B' DEF { REFLECT } 'A' DEF { NOPE } 'C' DEF { 1 } 'B' DEF\n{ 1 } 'X' BIND X 'D' DEF",
        &o,
    );
    assert!(r.error.is_none());
    let want = [
        WordContract {
            name: "B".into(),
            inputs: Some(0),
            outputs: Some(1),
            field: Some(Field::Closed),
            suggested: Some("#:contract B inputs=0 outputs=1 field=closed".into()),
            gap: None,
        },
        WordContract {
            name: "A".into(),
            inputs: Some(1),
            outputs: Some(1),
            field: Some(Field::Extends),
            suggested: Some("#:contract A inputs=1 outputs=1 field=extends".into()),
            gap: None,
        },
        WordContract {
            name: "C".into(),
            inputs: None,
            outputs: None,
            field: Some(Field::Closed),
            suggested: Some("#:contract C field=closed".into()),
            gap: Some(Gap::UnresolvedWord),
        },
        WordContract {
            name: "D".into(),
            inputs: None,
            outputs: None,
            field: None,
            suggested: None,
            gap: Some(Gap::UnmodelledControlFlow),
        },
    ];
    assert_eq!(r.contracts, want);
    let none = ajisai_core::json::HostFields::NONE;
    let v: serde_json::Value = serde_json::from_str(&infer_json(&r, &none)).expect("valid JSON");
    assert_eq!(v["status"], "ok");
    assert_eq!(
        v["contracts"][2],
        serde_json::json!({"name": "C", "field": "closed", "suggested": "#:contract C field=closed", "gap": "gap.unresolvedWord"})
    );
    assert_eq!(
        v["contracts"][3],
        serde_json::json!({"name": "D", "gap": "gap.unmodelledControlFlow"})
    );

    // Unparseable source: the same error as the other tools.
    let r = infer_contracts("{ NOT } 'A' DEF (", &o);
    let c = check("{ NOT } 'A' DEF (", &o);
    assert_eq!(r.error, c.error);
    assert!(r.contracts.is_empty());
    let v: serde_json::Value = serde_json::from_str(&infer_json(&r, &none)).expect("valid JSON");
    assert_eq!(v["status"], "error");
    assert!(v.get("contracts").is_none());
}

#[test]
fn infer_program_ignores_prelude_words_but_uses_them() {
    let source = program("{ P NOT } 'S' DEF");
    let prelude = program("{ NOT NOT } 'P' DEF");
    let got = infer_program(&source, &[&prelude.block]);
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].inputs, got[0].outputs), (Some(1), Some(1)));
}
