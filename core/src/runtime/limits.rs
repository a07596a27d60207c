//! Limit profiles and the meter every Word charges.
//!
//! A limit never produces NIL or a partial value: a breach is the ERROR
//! `resourceLimitExceeded` naming the limit, measured before anything is built
//! (docs/reference/pricing-and-limits.md). The meter also carries the host's interrupt flag so long
//! loops can be stopped from outside.

use crate::outcome::{ErrorCategory, LangError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The thirteen declared limits, in the order `ajisai://limits` lists them.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, strum::IntoStaticStr,
)]
#[serde(rename_all = "camelCase")]
#[strum(serialize_all = "camelCase")]
pub enum Limit {
    /// UTF-8 bytes of one program.
    SourceBytes,
    /// Wall-clock milliseconds of one execution (host-enforced).
    WallTimeMs,
    /// Bytes of one delivered tool result (host-enforced).
    ResponseBytes,
    /// Word invocations and tail-call iterations, accumulated.
    ExecutionSteps,
    /// Simultaneous executions (host-enforced).
    ConcurrentExecutions,
    /// Elements one generative Word builds.
    MaterializedElements,
    /// Depth of a value built from a description.
    NestingDepth,
    /// ASCII digits of one numeric lexeme.
    NumericLiteralDigits,
    /// Arithmetic work in limb-multiply units, accumulated.
    NumericWork,
    /// Element copies, comparisons and probes in collection Words, accumulated.
    CollectionWork,
    /// Bit width of every Number a Word computes.
    BigintBits,
    /// Terms of one algebraic Number.
    AlgebraicTerms,
    /// Bytes one execution may hold at once (host-enforced by a counting allocator).
    MemoryBytes,
}

impl Limit {
    /// All thirteen limits.
    pub const ALL: [Limit; 13] = [
        Limit::SourceBytes,
        Limit::WallTimeMs,
        Limit::ResponseBytes,
        Limit::ExecutionSteps,
        Limit::ConcurrentExecutions,
        Limit::MaterializedElements,
        Limit::NestingDepth,
        Limit::NumericLiteralDigits,
        Limit::NumericWork,
        Limit::CollectionWork,
        Limit::BigintBits,
        Limit::AlgebraicTerms,
        Limit::MemoryBytes,
    ];

    /// The nine limits the engine itself enforces.
    pub const ENGINE: [Limit; 9] = [
        Limit::SourceBytes,
        Limit::ExecutionSteps,
        Limit::MaterializedElements,
        Limit::NestingDepth,
        Limit::NumericLiteralDigits,
        Limit::NumericWork,
        Limit::CollectionWork,
        Limit::BigintBits,
        Limit::AlgebraicTerms,
    ];

    /// The limit's name as hosts publish it.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// A short text naming the unit the limit counts.
    pub fn unit(self) -> &'static str {
        match self {
            Limit::SourceBytes => "UTF-8 bytes of one program",
            Limit::WallTimeMs => "milliseconds from slot acquisition to a built result",
            Limit::ResponseBytes => "bytes of one delivered tool result",
            Limit::ExecutionSteps => "Word invocations and tail-call iterations, accumulated",
            Limit::ConcurrentExecutions => "simultaneous executions",
            Limit::MaterializedElements => "elements one generative Word builds",
            Limit::NestingDepth => "nesting levels of a value built from a description",
            Limit::NumericLiteralDigits => "ASCII digits of one numeric lexeme",
            Limit::NumericWork => "arithmetic work in 64-bit-limb multiply units, accumulated",
            Limit::CollectionWork => {
                "element copies, order comparisons and equality probes, accumulated"
            }
            Limit::BigintBits => "bit width of any numerator or denominator of one computed Number",
            Limit::AlgebraicTerms => "terms of one algebraic Number",
            Limit::MemoryBytes => "bytes of memory one execution holds at once",
        }
    }

    /// The limit with this name, if any.
    pub fn from_name(name: &str) -> Option<Limit> {
        Limit::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// A named set of limit values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The profile's published name.
    pub name: &'static str,
    /// UTF-8 bytes of one program.
    pub source_bytes: u64,
    /// Wall-clock budget in ms (host-enforced; `None` where the host applies none).
    pub wall_time_ms: Option<u64>,
    /// Response bytes (host-enforced; `None` where the host applies none).
    pub response_bytes: Option<u64>,
    /// Word invocations, accumulated.
    pub execution_steps: u64,
    /// Simultaneous executions (host-enforced; `None` where the host applies none).
    pub concurrent_executions: Option<u64>,
    /// Elements one generative Word builds.
    pub materialized_elements: u64,
    /// Depth of built values.
    pub nesting_depth: u64,
    /// Digits of one numeric lexeme.
    pub numeric_literal_digits: u64,
    /// Arithmetic work, accumulated.
    pub numeric_work: u64,
    /// Collection work, accumulated.
    pub collection_work: u64,
    /// Bit width of computed Numbers.
    pub bigint_bits: u64,
    /// Terms of one algebraic Number.
    pub algebraic_terms: u64,
    /// Memory one execution may hold (host-enforced; `None` where the host applies none).
    pub memory_bytes: Option<u64>,
}

impl Profile {
    /// The MCP server's profile `mcp-local-stdio`.
    pub const MCP_LOCAL_STDIO: Profile = Profile {
        name: "mcp-local-stdio",
        source_bytes: 65_536,
        wall_time_ms: Some(5_000),
        response_bytes: Some(1_048_576),
        execution_steps: 100_000,
        concurrent_executions: Some(4),
        materialized_elements: 100_000,
        nesting_depth: 32,
        numeric_literal_digits: 4_096,
        numeric_work: 10_000_000,
        collection_work: 20_000_000,
        bigint_bits: 262_144,
        algebraic_terms: 512,
        memory_bytes: Some(64 * 1024 * 1024),
    };

    /// The MCP server's profile over Streamable HTTP, `mcp-remote-http`: the engine limits
    /// and host limits of `mcp-local-stdio` under another name, so that an envelope tells
    /// which transport served it and nothing else differs.
    pub const MCP_REMOTE_HTTP: Profile = Profile {
        name: "mcp-remote-http",
        ..Profile::MCP_LOCAL_STDIO
    };

    /// The CLI's looser profile `cli-local`.
    pub const CLI_LOCAL: Profile = Profile {
        name: "cli-local",
        source_bytes: 16_777_216,
        wall_time_ms: None,
        response_bytes: None,
        execution_steps: 12_000_000,
        concurrent_executions: None,
        materialized_elements: 1_000_000,
        nesting_depth: 256,
        numeric_literal_digits: 4_096,
        numeric_work: 311_190_000,
        collection_work: 1_414_860_000,
        bigint_bits: 1_000_000,
        algebraic_terms: 10_000,
        memory_bytes: Some(1024 * 1024 * 1024),
    };

    /// The browser Playground's profile `playground`: the engine limits of `cli-local`
    /// (the product's Playground runs what the command line runs: 120× the MCP step
    /// budget, a million materialized elements) under host limits fit for a shared page —
    /// ten seconds, 4 MiB of result, 256 MiB of memory, the server's slots.
    pub const PLAYGROUND: Profile = Profile {
        name: "playground",
        wall_time_ms: Some(10_000),
        response_bytes: Some(4 * 1024 * 1024),
        concurrent_executions: Some(4),
        memory_bytes: Some(256 * 1024 * 1024),
        ..Profile::CLI_LOCAL
    };

    /// The value of `limit` in this profile (`None` for a host limit this profile does not apply).
    pub fn get(&self, limit: Limit) -> Option<u64> {
        match limit {
            Limit::SourceBytes => Some(self.source_bytes),
            Limit::WallTimeMs => self.wall_time_ms,
            Limit::ResponseBytes => self.response_bytes,
            Limit::ExecutionSteps => Some(self.execution_steps),
            Limit::ConcurrentExecutions => self.concurrent_executions,
            Limit::MaterializedElements => Some(self.materialized_elements),
            Limit::NestingDepth => Some(self.nesting_depth),
            Limit::NumericLiteralDigits => Some(self.numeric_literal_digits),
            Limit::NumericWork => Some(self.numeric_work),
            Limit::CollectionWork => Some(self.collection_work),
            Limit::BigintBits => Some(self.bigint_bits),
            Limit::AlgebraicTerms => Some(self.algebraic_terms),
            Limit::MemoryBytes => self.memory_bytes,
        }
    }

    /// The same profile with `limit` set to `value` (for injected-limit tests).
    pub fn with(mut self, limit: Limit, value: u64) -> Profile {
        match limit {
            Limit::SourceBytes => self.source_bytes = value,
            Limit::WallTimeMs => self.wall_time_ms = Some(value),
            Limit::ResponseBytes => self.response_bytes = Some(value),
            Limit::ExecutionSteps => self.execution_steps = value,
            Limit::ConcurrentExecutions => self.concurrent_executions = Some(value),
            Limit::MaterializedElements => self.materialized_elements = value,
            Limit::NestingDepth => self.nesting_depth = value,
            Limit::NumericLiteralDigits => self.numeric_literal_digits = value,
            Limit::NumericWork => self.numeric_work = value,
            Limit::CollectionWork => self.collection_work = value,
            Limit::BigintBits => self.bigint_bits = value,
            Limit::AlgebraicTerms => self.algebraic_terms = value,
            Limit::MemoryBytes => self.memory_bytes = Some(value),
        }
        self
    }
}

/// The refusal of a limit: `<limit> of <observed> exceeds the limit of <value>`.
///
/// `observed` is a decimal string because a bound on a literal can exceed any machine integer.
pub fn exceeded(limit: Limit, observed: impl std::fmt::Display, value: u64) -> LangError {
    let mut e = LangError::new(
        ErrorCategory::ResourceLimitExceeded,
        format!(
            "{} of {} exceeds the limit of {}",
            limit.name(),
            observed,
            value
        ),
    );
    e.resource = Some(limit.name());
    e
}

/// What interrupted a run from outside the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupt {
    /// The host's interrupt flag was raised (deadline or cancellation).
    Raised,
}

/// A shareable flag a host raises to stop a running program.
#[derive(Clone, Debug, Default)]
pub struct InterruptFlag(Arc<AtomicBool>);

impl InterruptFlag {
    /// A new, lowered flag.
    pub fn new() -> InterruptFlag {
        InterruptFlag::default()
    }
    /// Raise the flag: the run stops at its next check.
    pub fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    /// Lower the flag again, for a host that runs one execution after another under the
    /// same flag (a worker process, whose stop signal is registered once). Only between
    /// executions: lowering it under a running one would cancel a stop.
    pub fn lower(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
    /// Whether the flag is raised.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// The flag's shared cell, for a host that raises it from a signal handler (a worker
    /// process's stop signal).
    pub fn shared(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
    /// The flag itself, for a host that raises it from where it cannot hold a clone
    /// (the memory accountant, while the execution it serves holds the flag).
    pub fn as_atomic(&self) -> &AtomicBool {
        &self.0
    }
}

/// Asks the host whether the running execution may reserve this many more bytes at
/// once. A host that answers `false` has also raised the execution's interrupt flag, so
/// the run stops as a host interrupt (its `memoryBytes` ceiling), never as a language
/// result. Core never looks at memory itself.
pub type ReserveHook = fn(bytes: u64) -> bool;

static RESERVE_HOOK: std::sync::OnceLock<ReserveHook> = std::sync::OnceLock::new();

/// Install the process's reservation check (once; later calls are ignored).
pub fn set_reserve_hook(hook: ReserveHook) {
    let _ = RESERVE_HOOK.set(hook);
}

pub use crate::syntax::growth::{grow, grow_vec, GROWTH_STEP_BYTES};

/// Whether `bytes` more may be reserved at once (always, without a host check).
pub fn may_reserve(bytes: u64) -> bool {
    match RESERVE_HOOK.get() {
        Some(hook) => hook(bytes),
        None => true,
    }
}

/// Why a charge was refused: a language error, or an interrupt from the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A language ERROR (program outcome `error:<category>`).
    Error(LangError),
    /// The host stopped the run.
    Interrupted(Interrupt),
}

impl From<LangError> for Halt {
    fn from(e: LangError) -> Halt {
        Halt::Error(e)
    }
}

/// Units of work the meter lets pass between two checks of the interrupt flag.
///
/// Every Word charges or ticks for what it does (`docs/reference/pricing-and-limits.md`),
/// and the costliest unit measured on the reference machine takes well under a
/// microsecond (the calibration table of that page), so 1,024 units keep the gap between
/// two checks far below a millisecond while a check costs nothing measurable.
pub const CHECK_EVERY_UNITS: u64 = 1024;

/// Queued values a check frees ([`crate::value::drop_values`]): a few dozen microseconds.
pub const FREED_PER_CHECK: usize = 1024;

/// What a dispatch counts toward the next check: a Word's constant work, from the
/// operand checks to pushing its result (what it does beyond that it charges or ticks).
pub const STEP_UNITS: u64 = 4;

/// Called at every check of a meter's interrupt flag, on the thread that checks: the
/// poll-gap benchmark installs one to time the gaps between checks. Core reads no clock.
pub type CheckHook = fn();

static CHECK_HOOK: std::sync::OnceLock<CheckHook> = std::sync::OnceLock::new();

/// Install the process's check hook (once; later calls are ignored).
pub fn set_check_hook(hook: CheckHook) {
    let _ = CHECK_HOOK.set(hook);
}

/// Called when a Word's executor or continuation starts (`true`) and ends (`false`), with
/// the run's `numericWork` + `collectionWork` so far: the cost fuzzer's calibration
/// installs one to time each Word's work against what it charged. Core reads no clock.
pub type WordHook = fn(word: &'static str, start: bool, charged: u64);

static WORD_HOOK: std::sync::OnceLock<WordHook> = std::sync::OnceLock::new();

/// Install the process's Word hook (once; later calls are ignored).
pub fn set_word_hook(hook: WordHook) {
    let _ = WORD_HOOK.set(hook);
}

/// Report a Word's start or end to the Word hook, if one is installed.
#[inline]
pub fn report_word(word: &'static str, start: bool, meter: &Meter) {
    if let Some(hook) = WORD_HOOK.get() {
        hook(
            word,
            start,
            meter.numeric_work().saturating_add(meter.collection_work()),
        );
    }
}

/// The accumulating meters of one run, with the profile they compare against.
///
/// The meter is the one way work is done: a Word charges a budget before the work it
/// pays for ([`Meter::charge_numeric`], [`Meter::charge_collection`]) and ticks as the
/// work goes ([`Meter::tick`]); every [`CHECK_EVERY_UNITS`] units charged or ticked, and
/// at every charge, the meter checks the host's interrupt flag, which the host raises
/// at the deadline, on cancellation and when the execution's memory account crosses its
/// ceiling. So charging is polling: a loop that charges or ticks for its work cannot run
/// past a deadline or a memory ceiling by more than a check's worth of work.
#[derive(Clone, Debug)]
pub struct Meter {
    profile: Profile,
    steps: u64,
    numeric_work: u64,
    collection_work: u64,
    interrupt: Option<InterruptFlag>,
    /// Units charged or ticked since the last check (a cell, so that shared borrows of
    /// the meter — a walk holding the operands — can tick).
    since_check: std::cell::Cell<u64>,
}

impl Meter {
    /// A fresh meter under `profile`.
    pub fn new(profile: Profile) -> Meter {
        Meter {
            profile,
            steps: 0,
            numeric_work: 0,
            collection_work: 0,
            interrupt: None,
            since_check: std::cell::Cell::new(0),
        }
    }

    /// A meter under `profile` that stops when `flag` is raised (a host's render or
    /// static tool, which charges nothing but must stop at the deadline).
    pub fn with_interrupt(profile: Profile, flag: Option<InterruptFlag>) -> Meter {
        let mut m = Meter::new(profile);
        m.interrupt = flag;
        m
    }

    /// Attach the host's interrupt flag.
    pub fn set_interrupt(&mut self, flag: InterruptFlag) {
        self.interrupt = Some(flag);
    }

    /// The host's interrupt flag, if one is attached.
    pub fn interrupt(&self) -> Option<&InterruptFlag> {
        self.interrupt.as_ref()
    }

    /// The profile in force.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// `numericWork` charged so far.
    pub fn numeric_work(&self) -> u64 {
        self.numeric_work
    }
    /// `collectionWork` charged so far.
    pub fn collection_work(&self) -> u64 {
        self.collection_work
    }

    /// Check the interrupt flag now: stop if the host raised it (deadline, cancellation,
    /// memory ceiling).
    #[inline]
    pub fn poll(&self) -> Result<(), Halt> {
        self.since_check.set(0);
        if let Some(hook) = CHECK_HOOK.get() {
            hook();
        }
        match &self.interrupt {
            Some(flag) if flag.is_raised() => Err(Halt::Interrupted(Interrupt::Raised)),
            _ => {
                // Freeing is work too: a check's worth of queued values at a time.
                crate::value::free_deferred(FREED_PER_CHECK);
                Ok(())
            }
        }
    }

    /// Count `units` of work that is paid for (or free) and check the flag once
    /// [`CHECK_EVERY_UNITS`] units have passed since the last check.
    #[inline]
    pub fn tick(&self, units: u64) -> Result<(), Halt> {
        let since = self.since_check.get().saturating_add(units);
        if since >= CHECK_EVERY_UNITS {
            return self.poll();
        }
        self.since_check.set(since);
        Ok(())
    }

    /// Charge one execution step (a Word dispatch or a tail-call iteration).
    #[inline]
    pub fn step(&mut self) -> Result<(), Halt> {
        self.tick(STEP_UNITS)?;
        self.steps += 1;
        if self.steps > self.profile.execution_steps {
            return Err(exceeded(
                Limit::ExecutionSteps,
                self.steps,
                self.profile.execution_steps,
            )
            .into());
        }
        Ok(())
    }

    /// Charge `units` of `numericWork`; a refused charge stays on the meter.
    #[inline]
    pub fn charge_numeric(&mut self, units: u64) -> Result<(), Halt> {
        self.poll()?;
        self.numeric_work = self.numeric_work.saturating_add(units);
        if self.numeric_work > self.profile.numeric_work {
            return Err(exceeded(
                Limit::NumericWork,
                self.numeric_work,
                self.profile.numeric_work,
            )
            .into());
        }
        Ok(())
    }

    /// Charge `units` of `collectionWork`; a refused charge stays on the meter.
    #[inline]
    pub fn charge_collection(&mut self, units: u64) -> Result<(), Halt> {
        self.poll()?;
        self.collection_work = self.collection_work.saturating_add(units);
        if self.collection_work > self.profile.collection_work {
            return Err(exceeded(
                Limit::CollectionWork,
                self.collection_work,
                self.profile.collection_work,
            )
            .into());
        }
        Ok(())
    }

    /// Refuse a size of `observed` against a per-value ceiling.
    #[inline]
    pub fn check_size(&self, limit: Limit, observed: u64) -> Result<(), LangError> {
        let value = self.profile.get(limit).unwrap_or(u64::MAX);
        if observed > value {
            return Err(exceeded(limit, observed, value));
        }
        Ok(())
    }

    /// Stop before reserving `bytes` at once when the host's memory ceiling would not
    /// hold them (a big result known up front); polls the interrupt flag too.
    #[inline]
    pub fn reserve(&self, bytes: u64) -> Result<(), Halt> {
        self.poll()?;
        if bytes >= (1 << 20) && !may_reserve(bytes) {
            return Err(Halt::Interrupted(Interrupt::Raised));
        }
        Ok(())
    }

    /// The value of a per-value ceiling.
    pub fn ceiling(&self, limit: Limit) -> u64 {
        self.profile.get(limit).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_refusal_reads_limit_plus_one() {
        let mut m = Meter::new(Profile::MCP_LOCAL_STDIO.with(Limit::ExecutionSteps, 3));
        for _ in 0..3 {
            m.step().unwrap();
        }
        match m.step() {
            Err(Halt::Error(e)) => {
                assert_eq!(e.message, "executionSteps of 4 exceeds the limit of 3");
                assert_eq!(e.resource, Some("executionSteps"));
            }
            other => panic!("expected refusal, got {other:?}"),
        }
        assert_eq!(m.steps(), 4);
    }

    #[test]
    fn refused_work_charge_stays_on_meter() {
        let mut m = Meter::new(Profile::MCP_LOCAL_STDIO.with(Limit::CollectionWork, 100));
        m.charge_collection(60).unwrap();
        assert!(m.charge_collection(50).is_err());
        assert_eq!(m.collection_work(), 110);
    }

    #[test]
    fn raised_flag_interrupts_within_a_check_of_work() {
        let mut m = Meter::new(Profile::CLI_LOCAL);
        let flag = InterruptFlag::new();
        m.set_interrupt(flag.clone());
        m.step().unwrap();
        flag.raise();
        // Steps tick: the flag is seen within one check's worth of them.
        let steps_per_check = CHECK_EVERY_UNITS / STEP_UNITS;
        let stopped = (0..=steps_per_check).position(|_| m.step().is_err());
        assert!(stopped.is_some_and(|n| n as u64 <= steps_per_check));
        // Ticks: within one check's worth of units, whatever the batch.
        let m = Meter::with_interrupt(Profile::CLI_LOCAL, Some(flag.clone()));
        assert_eq!(m.tick(CHECK_EVERY_UNITS - 1), Ok(()));
        assert_eq!(m.tick(1), Err(Halt::Interrupted(Interrupt::Raised)));
        // A charge checks at once.
        let mut m = Meter::with_interrupt(Profile::CLI_LOCAL, Some(flag));
        assert_eq!(
            m.charge_collection(1),
            Err(Halt::Interrupted(Interrupt::Raised))
        );
    }

    #[test]
    fn every_check_calls_the_check_hook() {
        use std::sync::atomic::AtomicU64;
        static CHECKS: AtomicU64 = AtomicU64::new(0);
        set_check_hook(|| {
            CHECKS.fetch_add(1, Ordering::Relaxed);
        });
        let m = Meter::new(Profile::CLI_LOCAL);
        let before = CHECKS.load(Ordering::Relaxed);
        for _ in 0..10 * CHECK_EVERY_UNITS {
            m.tick(1).unwrap();
        }
        // Other tests may check meanwhile (the hook is process-wide): at least ten here.
        assert!(CHECKS.load(Ordering::Relaxed) - before >= 10);
    }

    #[test]
    fn size_check_boundary() {
        let m = Meter::new(Profile::MCP_LOCAL_STDIO);
        assert!(m.check_size(Limit::MaterializedElements, 100_000).is_ok());
        let e = m
            .check_size(Limit::MaterializedElements, 100_002)
            .unwrap_err();
        assert_eq!(
            e.message,
            "materializedElements of 100002 exceeds the limit of 100000"
        );
    }

    #[test]
    fn the_playground_runs_the_command_lines_engine_limits_under_its_own_host_limits() {
        let p = Profile::PLAYGROUND;
        for limit in Limit::ENGINE {
            assert_eq!(p.get(limit), Profile::CLI_LOCAL.get(limit), "{limit:?}");
        }
        assert_eq!(
            p.execution_steps,
            120 * Profile::MCP_LOCAL_STDIO.execution_steps
        );
        assert_eq!(p.wall_time_ms, Some(10_000));
        assert_eq!(p.response_bytes, Some(4_194_304));
        assert_eq!(p.memory_bytes, Some(268_435_456));
        assert_eq!(p.concurrent_executions, Some(4));
    }
}
