//! `ajisai-golden`: the evidence that the engine implements the specification.
//!
//! - `conformance/cases.json`: the language corpus (537 programs with recorded results);
//! - `seed/*.json`: our own cases, same format, for the behaviours the specification
//!   tags [seed] (no reference oracle exists for them);
//! - `limits.json`: every declared limit with its boundary pair or the test that pins it
//!   (MCP-56; docs/mcp/limits.md);
//! - `hostile.json`: programs written to exhaust time or memory, with the answer each
//!   must get from the live server within its limits;
//! - the no-panic fuzzer (`tests/fuzz.rs`), whose random programs ([`programs`]) the
//!   boundedness benchmark (`benches/bounded.rs`) shares.
//!
//! This library holds what the runners share: the case model, running a case
//! through `engine::compute`, and comparing every recorded field of the result.

pub mod cost;
pub mod eval;
pub mod programs;

use ajisai_core::display::display;
use ajisai_core::engine::{self, ComputeReport, Options};
use ajisai_core::envelope::compute_json;
use ajisai_core::json::HostFields;
use ajisai_core::numerics::{self, Numerics};
use ajisai_core::value::Value;
use ajisai_core::{Limit, Profile};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Native stack for runner threads. The engine needs none of it (it never recurses
/// over program or value depth); a big stack keeps a regression visible as a test
/// failure rather than a crash of the whole test binary.
pub const RUNNER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Make sure the Words and the backends are linked (they register via `inventory`).
pub fn link() {
    ajisai_words::link();
    ajisai_numerics_pure::link();
    ajisai_numerics_gmp::link();
}

/// Run `f` on a thread with [`RUNNER_STACK_BYTES`] of native stack and return its result.
pub fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let handle = std::thread::Builder::new()
        .name("golden-runner".into())
        .stack_size(RUNNER_STACK_BYTES)
        .spawn(f)
        .expect("the test machine can start a runner thread");
    match handle.join() {
        Ok(v) => v,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// A source written out by a generator (the generators of MCP-56): `spaces` (`bytes`),
/// `digits` (`digits`: a literal of that many 9s) or `nestedVector` (`depth`).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Generator {
    /// `bytes` spaces.
    Spaces {
        /// How many.
        bytes: usize,
    },
    /// One literal of `digits` nines.
    Digits {
        /// How many.
        digits: usize,
    },
    /// `[ ` × depth, `1`, ` ]` × depth.
    NestedVector {
        /// Nesting depth.
        depth: usize,
    },
}

impl Generator {
    /// The generated source text.
    pub fn source(&self) -> String {
        match self {
            Generator::Spaces { bytes } => " ".repeat(*bytes),
            Generator::Digits { digits } => "9".repeat(*digits),
            Generator::NestedVector { depth } => {
                format!("{}1{}", "[ ".repeat(*depth), " ]".repeat(*depth))
            }
        }
    }
}

/// The reference's diagnosis of an error, and this project's category (the compared part).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ErrorRef {
    /// The error category (docs/reference/errors.md#the-categories): what a runner compares.
    pub category: String,
    /// The reference's own fields, information only.
    #[serde(flatten)]
    pub info: BTreeMap<String, serde_json::Value>,
}

/// What a case expects. Absent optional fields are not compared, except `output`
/// and `nilReasons`, whose absence on an `ok` case means "none".
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Expect {
    /// `ok` or `error`.
    pub status: String,
    /// Slot displays, bottom to top; `null` for an irrational slot (see `exact_terms`).
    pub stack_display: Option<Vec<Option<String>>>,
    /// Irrational slots: slot index → `[numerator, denominator, radicand]` terms.
    #[serde(default)]
    pub exact_terms: BTreeMap<String, Vec<[String; 3]>>,
    /// `PRINT` lines, also those printed before an error.
    #[serde(default)]
    pub output: Vec<String>,
    /// Every NIL on the final stack, depth-first, left to right.
    #[serde(default)]
    pub nil_reasons: Vec<String>,
    /// On errors: the category.
    pub error_ref: Option<ErrorRef>,
    /// Seed cases: the exact error message.
    pub message: Option<String>,
    /// Seed cases: the limit a `resourceLimitExceeded` names.
    pub resource: Option<String>,
    /// Seed cases: exact meter readings (`executionSteps`, `numericWork`, `collectionWork`).
    pub resource_usage: Option<BTreeMap<String, u64>>,
    /// Seed cases: the outcome identifier of docs/reference/index.md#outcomes (`value`,
    /// `nil:<reason>`, `error:<category>`).
    pub outcome: Option<String>,
}

/// One case of the corpus or of the seed files.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Case {
    /// A unique kebab-case id.
    pub id: String,
    /// The canonical Words the program exercises.
    #[serde(default)]
    pub words: Vec<String>,
    /// The program (absent when a generator writes it).
    pub source: Option<String>,
    /// Writes the program when `source` is absent (`{"kind": "spaces", "bytes": 65536}`).
    pub generated: Option<Generator>,
    /// `mcp` (default: `mcp-local-stdio`) or `cli` (`cli-local`).
    pub profile: Option<String>,
    /// Limits overridden on top of the profile (injected-limit tests), by limit name.
    #[serde(default)]
    pub inject: BTreeMap<String, u64>,
    /// The expected result.
    pub expect: Expect,
    /// Why the case differs from the reference implementation, when it does.
    pub spec_note: Option<String>,
    /// The rule the case pins (`golden/seed/rules.json`: the section and the rule).
    pub note: Option<String>,
}

/// A file of cases: `{ "schemaVersion", "origin"?, "cases": [...] }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseFile {
    /// Format version.
    pub schema_version: u64,
    /// Where the expected values come from.
    #[serde(default)]
    pub origin: Option<String>,
    /// The cases.
    pub cases: Vec<Case>,
}

/// Parse a case file, naming it on failure.
pub fn load(name: &str, text: &str) -> CaseFile {
    match serde_json::from_str(text) {
        Ok(f) => f,
        Err(e) => panic!("{name} is not a valid case file: {e}"),
    }
}

/// The profile named `mcp` / `mcp-local-stdio` (default) or `cli` / `cli-local`, with
/// `inject` applied.
pub fn profile_of(name: Option<&str>, inject: &BTreeMap<String, u64>) -> Result<Profile, String> {
    let mut profile = match name {
        None | Some("mcp") | Some("mcp-local-stdio") => Profile::MCP_LOCAL_STDIO,
        Some("cli") | Some("cli-local") => Profile::CLI_LOCAL,
        Some(other) => return Err(format!("unknown profile {other:?}")),
    };
    for (limit, value) in inject {
        let Some(l) = Limit::from_name(limit) else {
            return Err(format!("unknown limit {limit:?}"));
        };
        profile = profile.with(l, *value);
    }
    Ok(profile)
}

impl Case {
    /// The program text.
    pub fn program(&self) -> Result<String, String> {
        match (&self.source, &self.generated) {
            (Some(s), None) => Ok(s.clone()),
            (None, Some(g)) => Ok(g.source()),
            _ => Err("a case has exactly one of `source` and `generated`".to_string()),
        }
    }

    /// The profile the case runs under.
    pub fn run_profile(&self) -> Result<Profile, String> {
        profile_of(self.profile.as_deref(), &self.inject)
    }

    /// A short label for messages.
    pub fn label(&self) -> String {
        let mut src = self.program().unwrap_or_default();
        if src.chars().count() > 80 {
            src = format!(
                "{}… ({} bytes)",
                src.chars().take(60).collect::<String>(),
                src.len()
            );
        }
        format!("{} `{}`", self.id, src.replace('\n', "⏎"))
    }
}

/// Every NIL's reason in `stack`, depth-first, left to right (nested ones included).
pub fn nil_reasons(stack: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    let mut work: Vec<&Value> = stack.iter().rev().collect();
    while let Some(v) = work.pop() {
        match v {
            Value::Nil(r) => out.push(r.id().to_string()),
            Value::Vector(items) => work.extend(items.items().iter().rev()),
            _ => {}
        }
    }
    out
}

/// The normal-form terms of a Number slot as `[numerator, denominator, radicand]`.
pub fn exact_terms(v: &Value) -> Option<Vec<[String; 3]>> {
    let Value::Number(n) = v else { return None };
    Some(
        n.terms()
            .iter()
            .map(|(c, d)| [c.numer().to_string(), c.denom().to_string(), d.to_string()])
            .collect(),
    )
}

/// Run a case, catching a panic as a finding rather than letting it stop the runner.
pub fn run(case: &Case) -> Result<ComputeReport, String> {
    let source = case.program()?;
    let profile = case.run_profile()?;
    catch_unwind(AssertUnwindSafe(|| {
        engine::compute(&source, &Options::new(profile))
    }))
    .map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("PANICKED: {msg}")
    })
}

/// The longest slot display the harness writes whole.
const DISPLAY_CAP_BYTES: u64 = 1 << 20;

/// A slot's display, or a note of its size when it would be longer than
/// [`DISPLAY_CAP_BYTES`] (a refused Word's operands may share 2^40 leaves).
pub fn bounded_display(v: &Value) -> String {
    let least = ajisai_core::display::display_lower_bound(v);
    if least > DISPLAY_CAP_BYTES {
        format!("(a display of at least {least} bytes)")
    } else {
        display(v)
    }
}

/// A compact description of what a run produced, for mismatch messages.
pub fn describe(report: &ComputeReport) -> String {
    let stack = ajisai_core::display::join_slots(report.stack.iter().map(bounded_display));
    match &report.error {
        Some(e) => format!(
            "error:{} ({}) with stack {stack}",
            e.category.id(),
            e.message
        ),
        None => stack,
    }
}

/// Every difference between a case's expectation and its run (empty when it holds).
pub fn mismatches(case: &Case) -> Vec<String> {
    let report = match run(case) {
        Ok(r) => r,
        Err(e) => return vec![e],
    };
    compare(&case.expect, &report)
}

/// Every difference between `expect` and `report`.
pub fn compare(expect: &Expect, report: &ComputeReport) -> Vec<String> {
    let mut out = Vec::new();
    let got_status = if report.error.is_some() {
        "error"
    } else {
        "ok"
    };
    if report.interrupted {
        out.push("the run was interrupted".to_string());
    }
    if got_status != expect.status {
        out.push(format!(
            "status: expected {}, got {} — {}",
            expect.status,
            got_status,
            describe(report)
        ));
        return out;
    }
    if report.output != expect.output {
        out.push(format!(
            "output: expected {:?}, got {:?}",
            expect.output, report.output
        ));
    }
    if let Some(e) = &report.error {
        if let Some(r) = &expect.error_ref {
            if e.category.id() != r.category {
                out.push(format!(
                    "category: expected {}, got {} ({})",
                    r.category,
                    e.category.id(),
                    e.message
                ));
            }
        }
        if let Some(m) = &expect.message {
            if &e.message != m {
                out.push(format!("message: expected {m:?}, got {:?}", e.message));
            }
        }
        if let Some(r) = &expect.resource {
            if e.resource != Some(r.as_str()) {
                out.push(format!("resource: expected {r}, got {:?}", e.resource));
            }
        }
    } else {
        let got_nils = nil_reasons(&report.stack);
        if got_nils != expect.nil_reasons {
            out.push(format!(
                "nilReasons: expected {:?}, got {:?}",
                expect.nil_reasons, got_nils
            ));
        }
    }
    if let Some(slots) = &expect.stack_display {
        let got: Vec<String> = report.stack.iter().map(bounded_display).collect();
        let same = slots.len() == got.len()
            && slots
                .iter()
                .zip(&got)
                .all(|(want, have)| want.as_ref().is_none_or(|w| w == have));
        if !same {
            out.push(format!("stackDisplay: expected {slots:?}, got {got:?}"));
        }
    }
    for (slot, want) in &expect.exact_terms {
        let got = slot
            .parse::<usize>()
            .ok()
            .and_then(|i| report.stack.get(i))
            .and_then(exact_terms);
        if got.as_ref() != Some(want) {
            out.push(format!(
                "exactTerms[{slot}]: expected {want:?}, got {got:?}"
            ));
        }
    }
    if let Some(want) = &expect.outcome {
        let got = report.outcome_id();
        if &got != want {
            out.push(format!("outcome: expected {want}, got {got}"));
        }
    }
    if let Some(usage) = &expect.resource_usage {
        for (meter, want) in usage {
            let got = match meter.as_str() {
                "executionSteps" => Some(report.usage.execution_steps),
                "numericWork" => Some(report.usage.numeric_work),
                "collectionWork" => Some(report.usage.collection_work),
                _ => None,
            };
            if got != Some(*want) {
                out.push(format!(
                    "resourceUsage.{meter}: expected {want}, got {got:?}"
                ));
            }
        }
    }
    out
}

/// The Word a run stopped on because this build does not register it, if that is why it
/// failed (the case expected no `unknownWord`): a case written for a Word this build does
/// not have yet, reported apart from the failures of Words it has.
fn unregistered_word(expect: &Expect, report: &ComputeReport) -> Option<String> {
    let e = report.error.as_ref()?;
    if e.category.id() != "unknownWord"
        || expect
            .error_ref
            .as_ref()
            .is_some_and(|r| r.category == "unknownWord")
    {
        return None;
    }
    let name = ajisai_core::code::normalize(e.word.as_deref()?);
    ajisai_words::registry()
        .lookup(&name)
        .is_none()
        .then_some(name)
}

/// The failures of a run of many cases.
#[derive(Debug, Default)]
pub struct Summary {
    /// Cases run.
    pub total: usize,
    /// Each failing case with its mismatches.
    pub failures: Vec<(Case, Vec<String>)>,
    /// Failing cases stopped by a Core Word this build does not register, by that Word.
    pub unregistered: BTreeMap<String, usize>,
    /// Other failing cases, counted under every Word they exercise.
    pub by_word: BTreeMap<String, usize>,
    /// The backends every case ran on.
    pub backends: Vec<&'static str>,
}

/// A backend a runner compares, with the label reports use for it.
#[derive(Clone, Copy)]
pub struct Backend {
    /// `gmp`, `pure`, or `gmp-plugin` for the GMP backend behind the plugin interface.
    pub label: &'static str,
    /// The backend.
    pub numerics: &'static dyn Numerics,
}

/// Every numeric backend linked into this build, highest priority first; with the
/// `gmp` feature also the GMP backend served through the plugin interface in-process
/// (the root module a plugin file exports, behind the loader's checks), so every case
/// also crosses the FFI boundary's marshalling.
pub fn backends() -> Vec<Backend> {
    link();
    let builtin = numerics::registered().into_iter().map(|r| Backend {
        label: r.kind.id(),
        numerics: (r.get)(),
    });
    #[cfg(feature = "gmp")]
    let builtin = builtin.chain(std::iter::once(Backend {
        label: "gmp-plugin",
        numerics: plugin_interface(),
    }));
    builtin.collect()
}

/// The GMP backend behind the plugin interface, without loading a file.
#[cfg(feature = "gmp")]
pub fn plugin_interface() -> &'static dyn Numerics {
    use std::sync::OnceLock;
    static PLUGIN: OnceLock<ajisai_numerics_gmp::Plugin> = OnceLock::new();
    PLUGIN.get_or_init(|| {
        ajisai_numerics_gmp::Plugin::from_module(
            ajisai_numerics_gmp::export::module(),
            std::path::Path::new("(in-process plugin interface)"),
        )
        .expect("the built-in module passes the loader's checks")
    })
}

/// The envelope of `report` as the CLI and MCP server would serialize it, without
/// host fields (so without the backend): the unit of backend parity.
/// A stack whose envelope would be longer than [`ENVELOPE_CAP_BYTES`] is fitted into that
/// many bytes as the server fits its answers (MCP-52, docs/mcp/envelope.md), the same on every backend: the CLI
/// refuses such a document with `memoryExhausted`, and writing it whole would exhaust the
/// test machine (a refused Word leaves its operands, which may share 2^40 leaves).
pub fn envelope(report: &ComputeReport) -> String {
    let total = ajisai_core::envelope::stack_cost(report).unwrap_or(u64::MAX);
    if total <= ENVELOPE_CAP_BYTES {
        compute_json(report, &HostFields::NONE)
    } else {
        ajisai_core::envelope::compute_json_within(report, ENVELOPE_CAP_BYTES, &HostFields::NONE)
            .json
    }
}

/// The longest envelope [`envelope`] writes whole.
pub const ENVELOPE_CAP_BYTES: u64 = 16 * 1024 * 1024;

/// Run one case on every backend: the findings of the first, plus any backend whose
/// envelope differs from the first's (results must be byte-identical across backends).
fn run_on_every_backend(case: &Case, backends: &[Backend]) -> (Vec<String>, Option<String>) {
    let mut first: Option<(String, String)> = None;
    let mut found = Vec::new();
    let mut blocked = None;
    for b in backends {
        let kind = b.label;
        let (envelope, mut findings) = numerics::with_backend(b.numerics, || match run(case) {
            Ok(report) => {
                if blocked.is_none() {
                    blocked = unregistered_word(&case.expect, &report);
                }
                (envelope(&report), compare(&case.expect, &report))
            }
            Err(e) => (String::new(), vec![e]),
        });
        match &first {
            None => {
                found.append(&mut findings);
                first = Some((kind.to_string(), envelope));
            }
            Some((first_kind, first_envelope)) if *first_envelope != envelope => {
                found.push(format!(
                    "backend parity: the {kind} envelope differs from the {first_kind} one"
                ));
            }
            Some(_) => {}
        }
    }
    (found, blocked)
}

/// Run every case on every linked numeric backend and collect the failures.
/// `AJISAI_CASE_TRACE=1` names each case and its source on stderr before it runs.
pub fn run_all(cases: &[Case]) -> Summary {
    let backends = backends();
    let mut summary = Summary {
        total: cases.len(),
        backends: backends.iter().map(|b| b.label).collect(),
        ..Summary::default()
    };
    let trace = std::env::var_os("AJISAI_CASE_TRACE").is_some();
    for case in cases {
        if trace {
            eprintln!("{}: {}", case.label(), case.program().unwrap_or_default());
        }
        let (found, blocked) = run_on_every_backend(case, &backends);
        if found.is_empty() {
            continue;
        }
        match blocked {
            Some(w) => *summary.unregistered.entry(w).or_default() += 1,
            None if case.words.is_empty() => {
                *summary.by_word.entry("(no Word)".to_string()).or_default() += 1
            }
            None => {
                for w in &case.words {
                    *summary.by_word.entry(w.clone()).or_default() += 1;
                }
            }
        }
        summary.failures.push((case.clone(), found));
    }
    summary
}

fn counts(map: &BTreeMap<String, usize>) -> String {
    let mut items: Vec<(&String, &usize)> = map.iter().collect();
    items.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if items.is_empty() {
        return "none".to_string();
    }
    items
        .iter()
        .map(|(w, n)| format!("{w} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Summary {
    /// One line: totals.
    pub fn headline(&self, what: &str) -> String {
        format!(
            "{what}: {} cases, {} passed, {} failed (backends: {})",
            self.total,
            self.total - self.failures.len(),
            self.failures.len(),
            self.backends.join(", ")
        )
    }

    /// Every failing case with its mismatches, then the counts by Word.
    pub fn report(&self) -> String {
        let mut s = format!(
            "{} of {} case(s) failed:\n",
            self.failures.len(),
            self.total
        );
        for (case, found) in &self.failures {
            s.push_str(&format!("- {} [{}]\n", case.label(), case.words.join(" ")));
            for f in found {
                s.push_str(&format!("    {f}\n"));
            }
        }
        s.push_str(&format!(
            "stopped by a Core Word this build does not register: {}\n",
            counts(&self.unregistered)
        ));
        s.push_str(&format!(
            "other failing cases, by every Word they exercise: {}\n",
            counts(&self.by_word)
        ));
        s
    }
}

/// SplitMix64: a tiny, reproducible generator (from a seed, no dependencies) that drives
/// the random programs of the fuzz and parity tests.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.bits() % n
    }

    /// An index into a collection of `len > 0` items.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// True with the given chance in percent.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
}

/// The workspace's crates, as folders of the repository root: what the source-scanning
/// tests walk.
pub const WORKSPACE_CRATES: [&str; 6] = [
    "core",
    "words",
    "server",
    "golden",
    "numerics-pure",
    "numerics-gmp",
];

/// The repository's root folder (the workspace), canonical when it can be.
fn repository_root() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

/// Every `.rs` file of every workspace crate (sources, tests, benches), with its path and
/// text, in no particular order.
pub fn workspace_rust_files() -> Vec<(std::path::PathBuf, String)> {
    let root = repository_root();
    WORKSPACE_CRATES
        .iter()
        .flat_map(|krate| rust_files(&root.join(krate)))
        .collect()
}

/// Every script of the repository that is not Rust — CI (`.ci/`), `scripts/`, the
/// end-to-end clients (`golden/e2e/*.mjs`, `golden/python/*.py`) and the conformance
/// suite's runner — with its path and text: their comments link the guide like the
/// Rust sources do.
pub fn workspace_scripts() -> Vec<(std::path::PathBuf, String)> {
    let root = repository_root();
    let mut out = files_ending(&root.join(".ci"), "");
    out.extend(files_ending(&root.join("scripts"), ""));
    out.extend(files_ending(&root.join("golden/e2e"), ".mjs"));
    out.extend(files_ending(&root.join("golden/python"), ".py"));
    out.extend(files_ending(&root.join("golden/mcp-conformance"), ".sh"));
    out.extend(files_ending(&root.join("packaging"), ".mjs"));
    out.extend(files_ending(&root.join("packaging"), ".js"));
    out
}

/// The golden data and the evaluation corpus with their READMEs (`golden/*.json`,
/// `golden/seed/`, `golden/conformance/`, `eval/`): their notes cite the guide, as code
/// does.
pub fn golden_data() -> Vec<(std::path::PathBuf, String)> {
    let root = repository_root();
    let mut out = Vec::new();
    for dir in ["golden", "golden/seed", "golden/conformance", "eval"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("a readable folder") {
            let path = entry.expect("a readable entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".json") || name == "README.md" {
                let text = std::fs::read_to_string(&path).expect("readable data");
                out.push((path, text));
            }
        }
    }
    out
}

/// Every `.rs` file under `dir` (build output and `node_modules` skipped), with its
/// text, in no particular order: what the source-scanning tests read.
pub fn rust_files(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    files_ending(dir, ".rs")
}

/// Every file under `dir` whose name ends with `suffix` (build output and
/// `node_modules` skipped), with its text, in no particular order.
pub fn files_ending(dir: &std::path::Path, suffix: &str) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable folder") {
            let path = entry.expect("a readable entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !matches!(name, "target" | "node_modules") {
                    dirs.push(path);
                }
            } else if name.ends_with(suffix) {
                let text = std::fs::read_to_string(&path).expect("a readable file");
                out.push((path, text));
            }
        }
    }
    out
}

/// How a run differs from an example's expectation, written as the registry writes
/// examples (`word::Example` in its slots notation: the stack displays joined by
/// ` | `, `(empty)`, `error:<category>`, or a NIL on top with ` (nil:<reason>)`) and
/// the lines it prints; `None` when it matches.
pub fn example_mismatch(
    source: &str,
    expect: &str,
    prints: &[&str],
    profile: &Profile,
) -> Option<String> {
    let report = engine::compute(source, &Options::new(profile.clone()));
    let got_stack = ajisai_core::display::stack_line(&report.stack);
    let got = match &report.error {
        Some(e) => format!("error:{} ({})", e.category.id(), e.message),
        None => got_stack.clone(),
    };
    let ok = if let Some(category) = expect.strip_prefix("error:") {
        report
            .error
            .as_ref()
            .is_some_and(|e| e.category.id() == category)
    } else if let Some((slots, reason)) = expect
        .strip_suffix(')')
        .and_then(|e| e.rsplit_once(" (nil:"))
    {
        report.error.is_none()
            && got_stack == slots
            && report
                .stack
                .last()
                .and_then(|v| v.nil_reason())
                .map(|r| r.id())
                == Some(reason)
    } else {
        report.error.is_none() && got_stack == expect
    };
    let printed_ok = report
        .output
        .iter()
        .map(String::as_str)
        .eq(prints.iter().copied());
    (!(ok && printed_ok)).then(|| {
        format!(
            "`{source}`: expected {expect} printing {prints:?}, got {got} printing {:?}",
            report.output
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ajisai_core::outcome::NilReason;

    #[test]
    fn nil_reasons_walk_depth_first_left_to_right() {
        let stack = vec![
            Value::Nil(NilReason::Literal),
            Value::vector(vec![
                Value::vector(vec![Value::Nil(NilReason::DivisionByZero)]),
                Value::Nil(NilReason::DomainMiss),
            ]),
            Value::Bool(true),
        ];
        assert_eq!(
            nil_reasons(&stack),
            ["literal", "divisionByZero", "domainMiss"]
        );
    }

    #[test]
    fn generators_write_the_probe_shapes() {
        assert_eq!(Generator::NestedVector { depth: 2 }.source(), "[ [ 1 ] ]");
        assert_eq!(Generator::Digits { digits: 3 }.source(), "999");
        assert_eq!(Generator::Spaces { bytes: 2 }.source(), "  ");
    }

    #[test]
    fn profiles_take_injected_limits() {
        let mut inject = BTreeMap::new();
        inject.insert("numericWork".to_string(), 7);
        let p = profile_of(Some("mcp"), &inject).unwrap();
        assert_eq!(p.numeric_work, 7);
        assert!(profile_of(Some("fast"), &inject).is_err());
    }
}
