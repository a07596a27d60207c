//! The numeric backend trait, backend registration and selection.
//!
//! The tower in [`crate::number`] handles every value that fits a machine integer
//! inline; only bigger integers cross this trait. Integers cross as sign plus
//! little-endian 64-bit limbs, so backends see no core type and results are a
//! function of the operands alone (byte-identical across backends).
//!
//! Backends register with `inventory::submit!` a [`BackendRegistration`]; the
//! process selects one once ([`select`]), honouring `AJISAI_NUMERICS`.

use std::cell::Cell;
use std::fmt;
use std::sync::OnceLock;

/// A borrowed integer: sign and magnitude as little-endian 64-bit limbs.
///
/// The magnitude has no high zero limbs; zero is the empty slice (and never negative).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntRef<'a> {
    /// True for a negative value.
    pub negative: bool,
    /// Magnitude limbs, least significant first, no high zero limb.
    pub limbs: &'a [u64],
}

/// An owned integer in the same form as [`IntRef`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntBuf {
    /// True for a negative value.
    pub negative: bool,
    /// Magnitude limbs, least significant first (high zero limbs are trimmed by the receiver).
    pub limbs: Vec<u64>,
}

impl IntBuf {
    /// Trim high zero limbs and clear the sign of zero.
    pub fn normalize(mut self) -> IntBuf {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
        if self.limbs.is_empty() {
            self.negative = false;
        }
        self
    }

    /// Borrow as an [`IntRef`].
    pub fn as_ref(&self) -> IntRef<'_> {
        IntRef {
            negative: self.negative,
            limbs: &self.limbs,
        }
    }
}

/// A borrowed rational: numerator and denominator in lowest terms, the denominator
/// positive (so never the empty slice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatRef<'a> {
    /// The numerator (carries the sign).
    pub num: IntRef<'a>,
    /// The denominator (> 0).
    pub den: IntRef<'a>,
}

/// An owned rational in the form of [`RatRef`]: lowest terms, positive denominator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RatBuf {
    /// The numerator (carries the sign).
    pub num: IntBuf,
    /// The denominator (> 0).
    pub den: IntBuf,
}

/// Which kind of arithmetic library a backend wraps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "camelCase")]
pub enum BackendKind {
    /// GMP through `rug`.
    Gmp,
    /// `num-bigint`, pure Rust.
    Pure,
}

impl BackendKind {
    /// The kind's id: `gmp` or `pure`.
    pub fn id(self) -> &'static str {
        self.into()
    }
}

/// Where a backend came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "camelCase")]
pub enum BackendOrigin {
    /// Linked into the binary.
    Builtin,
    /// Loaded at run time from a shared library.
    Plugin,
}

impl BackendOrigin {
    /// The origin's id: `builtin` or `plugin`.
    pub fn id(self) -> &'static str {
        self.into()
    }
}

/// Exact arithmetic on integers and rationals too wide for a machine word. Every method
/// is a pure function of its operands.
///
/// Operands and results are sign-magnitude limb vectors ([`IntRef`], [`IntBuf`]) and
/// pairs of them ([`RatRef`], [`RatBuf`]). Divisions truncate toward zero (the remainder
/// has the dividend's sign). Rational operands are in lowest terms with a positive
/// denominator and so are rational results: the canonical form is unique, so every
/// backend's answer is the same bytes whatever algorithm computes it. The rational
/// operations are the backend's because each library has its own best way to do them
/// (GMP's `mpq` functions; Knuth's gcd-of-denominators algorithms over the pure
/// integers): done in core on top of the integer operations, a rational sum cost six
/// calls, each copying its result out.
pub trait Numerics: Send + Sync + 'static {
    /// The library kind.
    fn kind(&self) -> BackendKind;
    /// The library and version, e.g. `GMP 6.3.0` or `num-bigint 0.4`.
    fn library(&self) -> String;
    /// a + b
    fn add(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf;
    /// a − b
    fn sub(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf;
    /// a · b
    fn mul(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf;
    /// The limbs of |a|·m for a machine word m ≥ 1, least significant first (the caller
    /// gives the sign). Core's one-pass loop ([`crate::number::int::mul_limbs_u64`]) unless
    /// the library has a faster one: the commonest product, a factorial's step and the
    /// cross products of a sum of fractions, and one where a copy out of the library
    /// would cost as much as the multiplication.
    fn mul_word(&self, a: &[u64], m: u64) -> Vec<u64> {
        crate::number::int::mul_limbs_u64(a, m)
    }
    /// (a / b truncated, a − b·q); b ≠ 0.
    fn div_rem(&self, a: IntRef<'_>, b: IntRef<'_>) -> (IntBuf, IntBuf);
    /// a / b where b divides a exactly; b ≠ 0.
    fn div_exact(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.div_rem(a, b).0
    }
    /// gcd(|a|, |b|) ≥ 0.
    fn gcd(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf;
    /// ⌊√a⌋ for a ≥ 0.
    fn isqrt(&self, a: IntRef<'_>) -> IntBuf;
    /// Decimal text, `-` for negatives.
    fn to_decimal(&self, a: IntRef<'_>) -> String;
    /// Parse a non-empty string of ASCII digits (no sign).
    fn parse_decimal(&self, digits: &str) -> IntBuf;
    /// a + b
    fn rat_add(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf;
    /// a − b
    fn rat_sub(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf;
    /// a · b
    fn rat_mul(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf;
    /// a / b; b ≠ 0.
    fn rat_div(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf;
    /// How a compares with b.
    fn rat_cmp(&self, a: RatRef<'_>, b: RatRef<'_>) -> std::cmp::Ordering;
    /// num/den in lowest terms with a positive denominator; den ≠ 0 (either may be
    /// negative).
    fn rat_canonical(&self, num: IntRef<'_>, den: IntRef<'_>) -> RatBuf;
}

/// A backend offered to the process: its kind, priority and constructor.
pub struct BackendRegistration {
    /// The library kind.
    pub kind: BackendKind,
    /// Higher wins under `auto`.
    pub priority: u32,
    /// The backend instance.
    pub get: fn() -> &'static dyn Numerics,
}

inventory::collect!(BackendRegistration);

/// A selected backend with its provenance.
#[derive(Clone, Copy)]
pub struct Selected {
    /// The backend.
    pub backend: &'static dyn Numerics,
    /// Linked in or loaded.
    pub origin: BackendOrigin,
    /// Why it was chosen (for `--doctor` and startup logs).
    pub reason: &'static str,
}

impl Selected {
    /// The provenance record `{kind, library, origin}`.
    pub fn provenance(&self) -> BackendProvenance {
        BackendProvenance {
            kind: self.backend.kind().id(),
            library: self.backend.library(),
            origin: self.origin.id(),
        }
    }
}

impl fmt::Debug for Selected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {})",
            self.backend.kind().id(),
            self.backend.library(),
            self.origin.id()
        )
    }
}

/// Which backend ran: the `backend` record of provenance (serialized in field order:
/// `kind`, `library`, `origin`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BackendProvenance {
    /// `gmp` or `pure`.
    pub kind: &'static str,
    /// e.g. `GMP 6.3.0`, `num-bigint 0.4`.
    pub library: String,
    /// `builtin` or `plugin`.
    pub origin: &'static str,
}

/// Why a backend choice was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectError(pub String);

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SelectError {}

/// The built-in backends, highest priority first.
pub fn registered() -> Vec<&'static BackendRegistration> {
    let mut all: Vec<&'static BackendRegistration> =
        inventory::iter::<BackendRegistration>.into_iter().collect();
    all.sort_by(|a, b| {
        b.priority
            .cmp(&a.priority)
            .then(a.kind.id().cmp(b.kind.id()))
    });
    all
}

/// The built-in backend of `kind`, if linked.
pub fn builtin(kind: BackendKind) -> Option<&'static dyn Numerics> {
    registered()
        .into_iter()
        .find(|r| r.kind == kind)
        .map(|r| (r.get)())
}

/// Decide which backend a choice (`auto`, `gmp`, `pure`; empty means `auto`) names,
/// given an optional already-loaded plugin. Pure function of its inputs; see [`select`].
pub fn choose(
    choice: &str,
    plugin: Option<&'static dyn Numerics>,
) -> Result<Selected, SelectError> {
    let builtins = registered();
    let available = || {
        let mut names: Vec<String> = builtins
            .iter()
            .map(|r| format!("{} (builtin)", r.kind.id()))
            .collect();
        if let Some(p) = plugin {
            names.insert(0, format!("{} (plugin)", p.kind().id()));
        }
        names.join(", ")
    };
    match choice {
        "" | "auto" => {
            if let Some(p) = plugin {
                return Ok(Selected {
                    backend: p,
                    origin: BackendOrigin::Plugin,
                    reason: "auto: plugin loaded",
                });
            }
            match builtins.first() {
                Some(r) => Ok(Selected {
                    backend: (r.get)(),
                    origin: BackendOrigin::Builtin,
                    reason: match r.kind {
                        BackendKind::Gmp => "auto: builtin GMP registered",
                        BackendKind::Pure => "auto: only the pure backend is built in",
                    },
                }),
                None => Err(SelectError(
                    "no numeric backend is linked into this build".into(),
                )),
            }
        }
        "gmp" => {
            if let Some(p) = plugin.filter(|p| p.kind() == BackendKind::Gmp) {
                return Ok(Selected {
                    backend: p,
                    origin: BackendOrigin::Plugin,
                    reason: "AJISAI_NUMERICS=gmp: plugin loaded",
                });
            }
            match builtin(BackendKind::Gmp) {
                Some(b) => Ok(Selected {
                    backend: b,
                    origin: BackendOrigin::Builtin,
                    reason: "AJISAI_NUMERICS=gmp",
                }),
                None => Err(SelectError(format!(
                    "AJISAI_NUMERICS=gmp but no gmp backend is available; available: {}",
                    available()
                ))),
            }
        }
        "pure" => match builtin(BackendKind::Pure) {
            Some(b) => Ok(Selected {
                backend: b,
                origin: BackendOrigin::Builtin,
                reason: "AJISAI_NUMERICS=pure",
            }),
            None => Err(SelectError(format!(
                "AJISAI_NUMERICS=pure but no pure backend is available; available: {}",
                available()
            ))),
        },
        other => Err(SelectError(format!(
            "AJISAI_NUMERICS={other:?} is not one of auto, gmp, pure; available backends: {}",
            available()
        ))),
    }
}

static PROCESS: OnceLock<Selected> = OnceLock::new();

thread_local! {
    static OVERRIDE: Cell<Option<&'static dyn Numerics>> = const { Cell::new(None) };
}

/// Fix the process backend. The first call wins; later calls return the backend
/// already fixed. Arithmetic that needs a backend before any call selects `auto`.
pub fn install(selected: Selected) -> Selected {
    *PROCESS.get_or_init(|| selected)
}

/// The backend fixed for this process (selecting `auto` on first use).
pub fn process() -> Selected {
    *PROCESS.get_or_init(|| {
        choose("auto", None)
            .expect("a numeric backend must be linked: depend on ajisai-numerics-pure")
    })
}

/// Run `f` with `backend` serving this thread's big-integer arithmetic
/// (used by parity tests to compare backends inside one process).
pub fn with_backend<R>(backend: &'static dyn Numerics, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<&'static dyn Numerics>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|o| o.set(self.0));
        }
    }
    let previous = OVERRIDE.with(|o| o.replace(Some(backend)));
    let _restore = Restore(previous);
    f()
}

/// The backend serving the current thread.
#[inline]
pub fn backend() -> &'static dyn Numerics {
    match OVERRIDE.with(|o| o.get()) {
        Some(b) => b,
        None => process().backend,
    }
}
