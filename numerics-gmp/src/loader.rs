//! The host side: load a plugin file, check it, and serve it as a `Numerics` backend.
//!
//! Compiled in every build (no GMP needed). Loading checks, in order: the file exists
//! and is a regular file; the dynamic loader accepts it; it exports an `abi_stable`
//! root module; its interface version is compatible with [`INTERFACE_VERSION`]; its
//! module layout matches this build's; it reports kind `gmp` and a `GMP x.y.z`
//! library. Each refusal is one [`LoadError`] whose text says what was expected and
//! what was found.
//!
//! After loading, a fault inside the plugin (a caught panic, or an answer that breaks
//! the interface contract) poisons the backend: that call and every later one panic on
//! the host side with a [`BackendFault`] payload, which hosts map to their own errors
//! (MCP-13; docs/mcp/index.md). There is never a fallback to another backend.

use crate::interface::{
    Answer, HostAllocator, IntArg, IntOut, NumericsModuleRef, RatArg, RatOut, INTERFACE_VERSION,
    REBUILD_ADVICE,
};
use abi_stable::library::{lib_header_from_path, LibraryError};
use abi_stable::sabi_types::{VersionNumber, VersionStrings};
use abi_stable::std_types::{RResult, RSlice, RStr};
use ajisai_core::numerics::{BackendKind, IntBuf, IntRef, Numerics, RatBuf, RatRef};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Why a plugin file was refused. Every variant keeps the path as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// Nothing exists at the path.
    Missing {
        /// The path as given.
        path: PathBuf,
    },
    /// Something exists but it is not a regular file (e.g. a directory).
    NotAFile {
        /// The path as given.
        path: PathBuf,
    },
    /// The dynamic loader refused the file (not a shared library for this platform).
    NotALibrary {
        /// The path as given.
        path: PathBuf,
        /// The loader's reason, on one line.
        reason: String,
    },
    /// A shared library, but it exports no `abi_stable` root module.
    NotAPlugin {
        /// The path as given.
        path: PathBuf,
    },
    /// An `abi_stable` library built with an incompatible `abi_stable`.
    AbiStable {
        /// The path as given.
        path: PathBuf,
        /// What the library declares, on one line.
        found: String,
    },
    /// An `abi_stable` plugin of another interface version.
    InterfaceVersion {
        /// The path as given.
        path: PathBuf,
        /// The version the plugin declares (as written, possibly unparsable).
        found: String,
    },
    /// The declared interface version fits but the module layout differs.
    Layout {
        /// The path as given.
        path: PathBuf,
    },
    /// The root module refused to initialize or faulted while describing itself.
    Fault {
        /// The path as given.
        path: PathBuf,
        /// What went wrong, on one line.
        reason: String,
    },
    /// The plugin serves a backend kind this loader does not accept.
    Kind {
        /// The path as given.
        path: PathBuf,
        /// The kind it reported.
        found: String,
    },
    /// The plugin's library description is not `GMP <major.minor.patch>`.
    Library {
        /// The path as given.
        path: PathBuf,
        /// What it reported.
        found: String,
    },
}

/// Squeeze a possibly multi-line message onto one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected_plugin = format!("an Ajisai numeric plugin (interface {INTERFACE_VERSION})");
        match self {
            LoadError::Missing { path } => write!(
                f,
                "numeric plugin {}: expected {expected_plugin}, found no file at that path",
                path.display()
            ),
            LoadError::NotAFile { path } => write!(
                f,
                "numeric plugin {}: expected {expected_plugin}, found something that is not a regular file",
                path.display()
            ),
            LoadError::NotALibrary { path, reason } => write!(
                f,
                "numeric plugin {}: expected {expected_plugin}, found a file that is not a loadable shared library ({reason})",
                path.display()
            ),
            LoadError::NotAPlugin { path } => write!(
                f,
                "numeric plugin {}: expected {expected_plugin}, found a shared library that exports no abi_stable root module",
                path.display()
            ),
            LoadError::AbiStable { path, found } => write!(
                f,
                "numeric plugin {}: expected {expected_plugin} built with a compatible abi_stable, found {found}",
                path.display()
            ),
            LoadError::InterfaceVersion { path, found } => write!(
                f,
                "numeric plugin {}: expected interface version {} (compatible with {INTERFACE_VERSION}), found interface version {found}: {REBUILD_ADVICE}",
                path.display(),
                compatible_range()
            ),
            LoadError::Layout { path } => write!(
                f,
                "numeric plugin {}: expected the module layout of interface {INTERFACE_VERSION}, found a different layout under the same version (rebuild the plugin from matching sources)",
                path.display()
            ),
            LoadError::Fault { path, reason } => write!(
                f,
                "numeric plugin {}: expected {expected_plugin} that initializes, found a fault: {reason}",
                path.display()
            ),
            LoadError::Kind { path, found } => write!(
                f,
                "numeric plugin {}: expected backend kind gmp, found {found:?}",
                path.display()
            ),
            LoadError::Library { path, found } => write!(
                f,
                "numeric plugin {}: expected a library named \"GMP <major.minor.patch>\", found {found:?}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// The versions this loader accepts, e.g. `1.x (x ≥ 0)`.
fn compatible_range() -> String {
    match VersionStrings::new(INTERFACE_VERSION).parsed() {
        Ok(v) => format!("{}.x with x >= {}", v.major, v.minor),
        Err(_) => INTERFACE_VERSION.to_string(),
    }
}

/// Whether a plugin declaring `found` can serve this loader: the same major version and
/// at least this minor (a newer minor only appends module fields this loader ignores).
pub fn compatible(expected: VersionNumber, found: VersionNumber) -> bool {
    found.major == expected.major && found.minor >= expected.minor
}

/// Whether `s` is `GMP <major>.<minor>.<patch>` with decimal parts.
fn is_gmp_library(s: &str) -> bool {
    let Some(v) = s.strip_prefix("GMP ") else {
        return false;
    };
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `s` is the canonical decimal text of an integer: `0`, or an optional `-`
/// then digits without a leading zero.
fn is_canonical_decimal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return false;
    }
    !(s.starts_with('-') && digits == "0")
}

/// How a plugin call went wrong; the payload of the host-side panic that reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The plugin faulted (a panic caught at its boundary).
    Failure,
    /// The plugin answered data that breaks the interface contract.
    Malformed,
    /// An earlier fault poisoned the backend; it serves no further calls.
    Poisoned,
}

/// A fault of a loaded plugin, raised on the host side with `std::panic::panic_any`.
/// Hosts catch the panic of the execution and look for this payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendFault {
    /// What kind of fault.
    pub kind: FaultKind,
    /// An operator-facing description.
    pub message: String,
}

impl fmt::Display for BackendFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl BackendFault {
    /// The fault carried by a caught panic's payload, if it is one.
    pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Option<&BackendFault> {
        payload.downcast_ref::<BackendFault>()
    }
}

/// A loaded, checked plugin serving as a `Numerics` backend.
pub struct Plugin {
    module: NumericsModuleRef,
    library: String,
    path: PathBuf,
    poisoned: AtomicBool,
}

impl fmt::Debug for Plugin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plugin")
            .field("library", &self.library)
            .field("path", &self.path)
            .field("poisoned", &self.is_poisoned())
            .finish()
    }
}

impl Plugin {
    /// The file it was loaded from (as given).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a fault has poisoned it (it then serves no further calls).
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::SeqCst)
    }

    /// Check a module and wrap it: the kind must be `gmp` and the library `GMP x.y.z`.
    /// `path` names where it came from, for messages.
    pub fn from_module(module: NumericsModuleRef, path: &Path) -> Result<Plugin, LoadError> {
        let path = path.to_path_buf();
        // Before anything else: the plugin's GMP allocates through this process's
        // allocator from its first block on, so the host counts it (memoryBytes).
        if let RResult::RErr(e) = (module.set_allocator())(HostAllocator::this_process()) {
            return Err(LoadError::Fault {
                path,
                reason: one_line(e.as_str()),
            });
        }
        let kind = call_kind(module);
        if kind != BackendKind::Gmp.id() {
            return Err(LoadError::Kind { path, found: kind });
        }
        let library = match (module.library())() {
            RResult::ROk(s) => s.into_string(),
            RResult::RErr(e) => {
                return Err(LoadError::Fault {
                    path,
                    reason: one_line(e.as_str()),
                })
            }
        };
        if !is_gmp_library(&library) {
            return Err(LoadError::Library {
                path,
                found: library,
            });
        }
        Ok(Plugin {
            module,
            library,
            path,
            poisoned: AtomicBool::new(false),
        })
    }

    fn refuse_if_poisoned(&self) {
        if self.is_poisoned() {
            std::panic::panic_any(BackendFault {
                kind: FaultKind::Poisoned,
                message: format!(
                    "the numeric plugin {} faulted earlier and serves no further calls",
                    self.path.display()
                ),
            });
        }
    }

    fn fault(&self, kind: FaultKind, message: String) -> ! {
        self.poisoned.store(true, Ordering::SeqCst);
        std::panic::panic_any(BackendFault { kind, message })
    }

    fn answer<T>(&self, op: &str, a: Answer<T>) -> T {
        match a {
            RResult::ROk(v) => v,
            RResult::RErr(e) => self.fault(
                FaultKind::Failure,
                format!(
                    "numeric plugin {} failed in {op}: {}",
                    self.path.display(),
                    one_line(e.as_str())
                ),
            ),
        }
    }

    fn int(&self, op: &str, a: Answer<IntOut>) -> IntBuf {
        self.answer(op, a).into_core()
    }

    /// A rational answer, refused as malformed unless its denominator is positive (the
    /// cheap half of the canonical form; the gcd half is the parity tests').
    fn rat(&self, op: &str, a: Answer<RatOut>) -> RatBuf {
        let out = self.answer(op, a);
        let (num, den) = (out.num.into_core(), out.den.into_core());
        if den.negative || den.limbs.is_empty() {
            self.fault(
                FaultKind::Malformed,
                format!(
                    "numeric plugin {} answered {op} with a denominator that is not positive",
                    self.path.display()
                ),
            );
        }
        RatBuf { num, den }
    }

    fn rational(
        &self,
        op: &str,
        f: extern "C" fn(RatArg<'_>, RatArg<'_>) -> Answer<RatOut>,
        a: RatRef<'_>,
        b: RatRef<'_>,
    ) -> RatBuf {
        self.refuse_if_poisoned();
        self.rat(op, f(RatArg::from_core(a), RatArg::from_core(b)))
    }
}

/// The kind a module reports. (Under the layout-test feature the field has another
/// type; such a build only ever plays the plugin, never the loader.)
fn call_kind(module: NumericsModuleRef) -> String {
    #[cfg(not(feature = "test-layout-mismatch"))]
    let kind = (module.kind())().into_string();
    #[cfg(feature = "test-layout-mismatch")]
    let kind = (module.kind())(0).to_string();
    kind
}

impl Numerics for Plugin {
    fn kind(&self) -> BackendKind {
        BackendKind::Gmp
    }

    fn library(&self) -> String {
        self.library.clone()
    }

    fn add(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.refuse_if_poisoned();
        self.int(
            "add",
            (self.module.add())(IntArg::from_core(a), IntArg::from_core(b)),
        )
    }

    fn sub(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.refuse_if_poisoned();
        self.int(
            "sub",
            (self.module.sub())(IntArg::from_core(a), IntArg::from_core(b)),
        )
    }

    fn mul(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.refuse_if_poisoned();
        self.int(
            "mul",
            (self.module.mul())(IntArg::from_core(a), IntArg::from_core(b)),
        )
    }

    fn mul_word(&self, a: &[u64], m: u64) -> Vec<u64> {
        self.refuse_if_poisoned();
        let limbs = self
            .answer(
                "mul_word",
                (self.module.mul_word())(RSlice::from_slice(a), m),
            )
            .into_vec();
        // The product of n limbs by a word has n or n + 1 limbs, the top one not zero:
        // anything else is no product of these operands.
        let sized = limbs.len() == a.len() || limbs.len() == a.len() + 1;
        if !sized || limbs.last().is_some_and(|&top| top == 0) || (a.is_empty() != limbs.is_empty())
        {
            self.fault(
                FaultKind::Malformed,
                format!(
                    "numeric plugin {} answered mul_word with {} limbs for an operand of {}",
                    self.path.display(),
                    limbs.len(),
                    a.len()
                ),
            );
        }
        limbs
    }

    fn div_rem(&self, a: IntRef<'_>, b: IntRef<'_>) -> (IntBuf, IntBuf) {
        self.refuse_if_poisoned();
        let qr = self.answer(
            "div_rem",
            (self.module.div_rem())(IntArg::from_core(a), IntArg::from_core(b)),
        );
        (qr.0.into_core(), qr.1.into_core())
    }

    fn div_exact(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.refuse_if_poisoned();
        self.int(
            "div_exact",
            (self.module.div_exact())(IntArg::from_core(a), IntArg::from_core(b)),
        )
    }

    fn gcd(&self, a: IntRef<'_>, b: IntRef<'_>) -> IntBuf {
        self.refuse_if_poisoned();
        self.int(
            "gcd",
            (self.module.gcd())(IntArg::from_core(a), IntArg::from_core(b)),
        )
    }

    fn isqrt(&self, a: IntRef<'_>) -> IntBuf {
        self.refuse_if_poisoned();
        self.int("isqrt", (self.module.isqrt())(IntArg::from_core(a)))
    }

    fn to_decimal(&self, a: IntRef<'_>) -> String {
        self.refuse_if_poisoned();
        let text = self
            .answer(
                "to_decimal",
                (self.module.to_decimal())(IntArg::from_core(a)),
            )
            .into_string();
        if !is_canonical_decimal(&text) {
            let shown: String = text.chars().take(40).collect();
            self.fault(
                FaultKind::Malformed,
                format!(
                    "numeric plugin {} answered to_decimal with {shown:?}, which is not a decimal integer",
                    self.path.display()
                ),
            );
        }
        text
    }

    fn parse_decimal(&self, digits: &str) -> IntBuf {
        self.refuse_if_poisoned();
        self.int(
            "parse_decimal",
            (self.module.parse_decimal())(RStr::from_str(digits)),
        )
    }

    fn rat_add(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        self.rational("rat_add", self.module.rat_add(), a, b)
    }

    fn rat_sub(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        self.rational("rat_sub", self.module.rat_sub(), a, b)
    }

    fn rat_mul(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        self.rational("rat_mul", self.module.rat_mul(), a, b)
    }

    fn rat_div(&self, a: RatRef<'_>, b: RatRef<'_>) -> RatBuf {
        self.rational("rat_div", self.module.rat_div(), a, b)
    }

    fn rat_cmp(&self, a: RatRef<'_>, b: RatRef<'_>) -> std::cmp::Ordering {
        self.refuse_if_poisoned();
        let sign = self.answer(
            "rat_cmp",
            (self.module.rat_cmp())(RatArg::from_core(a), RatArg::from_core(b)),
        );
        match sign {
            -1 => std::cmp::Ordering::Less,
            0 => std::cmp::Ordering::Equal,
            1 => std::cmp::Ordering::Greater,
            other => self.fault(
                FaultKind::Malformed,
                format!(
                    "numeric plugin {} answered rat_cmp with {other}, which is not -1, 0 or 1",
                    self.path.display()
                ),
            ),
        }
    }

    fn rat_canonical(&self, num: IntRef<'_>, den: IntRef<'_>) -> RatBuf {
        self.refuse_if_poisoned();
        self.rat(
            "rat_canonical",
            (self.module.rat_canonical())(IntArg::from_core(num), IntArg::from_core(den)),
        )
    }
}

/// Load and check the plugin at `path` (see the module documentation). The library
/// stays loaded for the life of the process.
pub fn load(path: &Path) -> Result<Plugin, LoadError> {
    let given = path.to_path_buf();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(_) => return Err(LoadError::Missing { path: given }),
    };
    if !meta.is_file() {
        return Err(LoadError::NotAFile { path: given });
    }
    // An absolute path keeps the dynamic loader from searching its library path for a
    // bare file name.
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let header = lib_header_from_path(&absolute).map_err(|e| classify(e, &given))?;
    let found = header.version_strings();
    let expected = VersionStrings::new(INTERFACE_VERSION).parsed();
    match (expected, found.parsed()) {
        (Ok(expected), Ok(found)) if compatible(expected, found) => {}
        _ => {
            return Err(LoadError::InterfaceVersion {
                path: given,
                found: found.version.as_str().to_string(),
            })
        }
    }
    let module = header
        .init_root_module::<NumericsModuleRef>()
        .map_err(|e| classify(e, &given))?;
    Plugin::from_module(module, &given)
}

/// Map `abi_stable`'s error to ours.
fn classify(e: LibraryError, path: &Path) -> LoadError {
    let path = path.to_path_buf();
    match e {
        LibraryError::OpenError { err, .. } => LoadError::NotALibrary {
            path,
            reason: one_line(&err.to_string()),
        },
        LibraryError::GetSymbolError { .. } => LoadError::NotAPlugin { path },
        LibraryError::InvalidAbiHeader(h) => LoadError::AbiStable {
            path,
            found: format!("abi_stable ABI {}.{}", h.abi_major, h.abi_minor),
        },
        LibraryError::InvalidCAbi { .. } => LoadError::AbiStable {
            path,
            found: "a library whose C ABI differs from this build's".to_string(),
        },
        LibraryError::ParseVersionError(v) => LoadError::InterfaceVersion {
            path,
            found: one_line(&v.to_string()),
        },
        LibraryError::IncompatibleVersionNumber { actual_version, .. } => {
            LoadError::InterfaceVersion {
                path,
                found: actual_version.to_string(),
            }
        }
        LibraryError::AbiInstability(_) => LoadError::Layout { path },
        LibraryError::RootModule { err, .. } => LoadError::Fault {
            path,
            reason: one_line(&err.to_string()),
        },
        LibraryError::Many(list) => match list.into_iter().next() {
            Some(first) => classify(first, &path),
            None => LoadError::Fault {
                path,
                reason: "the loader reported an empty list of errors".to_string(),
            },
        },
        // LibraryError is not marked non-exhaustive, but be ready for new variants.
        #[allow(unreachable_patterns)]
        other => LoadError::Fault {
            path,
            reason: one_line(&other.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_shape() {
        for ok in ["0", "7", "-7", "10", "-1234567890123456789012"] {
            assert!(is_canonical_decimal(ok), "{ok}");
        }
        for bad in ["", "-", "-0", "007", "1.5", "+3", " 3", "1e9"] {
            assert!(!is_canonical_decimal(bad), "{bad}");
        }
    }

    #[test]
    fn library_shape() {
        assert!(is_gmp_library("GMP 6.3.0"));
        for bad in ["GMP 6.3", "gmp 6.3.0", "GMP 6.3.x", "GMP", "num-bigint 0.4"] {
            assert!(!is_gmp_library(bad), "{bad}");
        }
    }

    #[test]
    fn version_compatibility() {
        let v = |major, minor, patch| VersionNumber {
            major,
            minor,
            patch,
        };
        assert!(compatible(v(1, 0, 0), v(1, 0, 0)));
        assert!(compatible(v(1, 0, 0), v(1, 2, 0)));
        assert!(!compatible(v(1, 2, 0), v(1, 1, 9)));
        assert!(!compatible(v(1, 0, 0), v(2, 0, 0)));
        assert!(!compatible(v(2, 0, 0), v(1, 0, 0)));
    }

    #[test]
    fn missing_and_non_files_are_refused_before_loading() {
        let missing = Path::new("/nonexistent/ajisai/libplugin.so");
        let e = load(missing).expect_err("no such file");
        assert_eq!(
            e,
            LoadError::Missing {
                path: missing.to_path_buf()
            }
        );
        let text = e.to_string();
        assert!(
            text.contains("expected an Ajisai numeric plugin (interface"),
            "{text}"
        );
        assert!(text.contains("found no file"), "{text}");
        assert!(!text.contains('\n'));
        let dir = std::env::temp_dir();
        assert_eq!(
            load(&dir).expect_err("a directory"),
            LoadError::NotAFile { path: dir.clone() }
        );
    }

    #[test]
    fn a_text_file_is_not_a_library() {
        let path =
            std::env::temp_dir().join(format!("ajisai-not-a-plugin-{}.so", std::process::id()));
        std::fs::write(&path, "this is not a shared library\n").expect("temp file");
        let e = load(&path).expect_err("text is not a library");
        let _ = std::fs::remove_file(&path);
        assert!(matches!(e, LoadError::NotALibrary { .. }), "{e:?}");
        let text = e.to_string();
        assert!(text.contains("not a loadable shared library"), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }
}
