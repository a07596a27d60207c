//! Numeric backend selection for the hosts (CLI and MCP server): read the
//! environment once at startup, load a configured plugin, choose, and fix the process
//! backend (MCP-11..MCP-14; docs/mcp/index.md).
//!
//! - `AJISAI_NUMERICS` = `auto` (default; also unset or empty) | `gmp` | `pure`.
//! - `AJISAI_NUMERICS_PLUGIN` = path of a GMP plugin (`libajisai_numerics_gmp.so`). When
//!   set and non-empty it MUST load and pass the interface check, unless
//!   `AJISAI_NUMERICS=pure`, which ignores it with a warning. A refused plugin is a
//!   startup fault: there is never a silent fallback.
//!
//! The choice itself is `ajisai_core::numerics::choose` (a pure function); this module
//! owns the environment and the plugin file.

use ajisai_core::numerics::{self, BackendOrigin, Numerics, SelectError, Selected};
use ajisai_numerics_gmp::{LoadError, Plugin};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The environment variable naming the backend kind.
pub const CHOICE_VAR: &str = "AJISAI_NUMERICS";
/// The environment variable naming a plugin file to load.
pub const PLUGIN_VAR: &str = "AJISAI_NUMERICS_PLUGIN";

/// Link the vocabulary and the backends compiled into this build.
pub fn link() {
    ajisai_words::link();
    ajisai_numerics_pure::link();
    ajisai_numerics_gmp::link();
    #[cfg(feature = "fault-injection")]
    crate::faults::link();
}

/// Whether the GMP backend is compiled into this binary (the `gmp` feature).
pub const GMP_BUILTIN: bool = ajisai_numerics_gmp::BUILTIN;

/// Each plugin path this process tried, with the outcome.
type LoadLog = Vec<(PathBuf, Result<&'static Plugin, LoadError>)>;

/// Plugins loaded by this process, by path as given (each file is loaded at most once).
fn loaded() -> &'static Mutex<LoadLog> {
    static LOADED: OnceLock<Mutex<LoadLog>> = OnceLock::new();
    LOADED.get_or_init(|| Mutex::new(Vec::new()))
}

/// Load the plugin at `path` once per process; later calls answer the same outcome.
pub fn load_plugin(path: &Path) -> Result<&'static Plugin, LoadError> {
    let mut cache = match loaded().lock() {
        Ok(c) => c,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some((_, outcome)) = cache.iter().find(|(p, _)| p == path) {
        return outcome.clone();
    }
    // A loaded library is never unloaded, so the backend lives as long as the process.
    let outcome = ajisai_numerics_gmp::load(path).map(|p| &*Box::leak(Box::new(p)));
    cache.push((path.to_path_buf(), outcome.clone()));
    outcome
}

/// The plugin the process selected, if its backend came from one.
pub fn selected_plugin() -> Option<&'static Plugin> {
    static SELECTED: OnceLock<Option<&'static Plugin>> = OnceLock::new();
    *SELECTED.get_or_init(|| {
        let process = numerics::process();
        if process.origin != BackendOrigin::Plugin {
            return None;
        }
        let cache = match loaded().lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        };
        cache.iter().find_map(|(_, outcome)| match outcome {
            Ok(p) if same_backend(p, process.backend) => Some(*p),
            _ => None,
        })
    })
}

fn same_backend(p: &'static Plugin, b: &'static dyn Numerics) -> bool {
    std::ptr::addr_eq(p as *const Plugin, b as *const dyn Numerics)
}

/// Whether the process backend is a plugin that has faulted (MCP-13: every later
/// execution answers `backendUnavailable`).
pub fn poisoned() -> bool {
    selected_plugin().is_some_and(|p| p.is_poisoned())
}

/// Every backend this process can run on, highest priority first: the loaded plugin
/// (if one was configured and loaded), then the built-in ones. For parity checks
/// (`--doctor` D7); the process backend stays the one [`select`] fixed.
pub fn available() -> Vec<Selected> {
    link();
    let mut all = Vec::new();
    let cache = match loaded().lock() {
        Ok(c) => c,
        Err(poisoned) => poisoned.into_inner(),
    };
    for (path, outcome) in cache.iter() {
        if let Ok(p) = outcome {
            all.push(Selected {
                backend: *p,
                origin: BackendOrigin::Plugin,
                reason: leak(format!("plugin loaded from {}", path.display())),
            });
        }
    }
    for r in numerics::registered() {
        all.push(Selected {
            backend: (r.get)(),
            origin: BackendOrigin::Builtin,
            reason: "builtin",
        });
    }
    all
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Why no numeric backend could be chosen; its text is one operator-facing line saying
/// what was expected and what was found.
#[derive(Debug, thiserror::Error)]
pub enum BackendChoiceError {
    /// `AJISAI_NUMERICS` is not valid text (shown lossily).
    #[error("{}={} is not valid text; expected auto, gmp or pure", CHOICE_VAR, .0)]
    NotText(String),
    /// `AJISAI_NUMERICS` names no backend kind: `choose`'s refusal, and the plugin that
    /// is configured, if any.
    #[error("{kind}{}", plugin_note(.plugin.as_deref()))]
    UnknownKind {
        /// `choose`'s refusal.
        kind: SelectError,
        /// `AJISAI_NUMERICS_PLUGIN`, when set.
        plugin: Option<PathBuf>,
    },
    /// The configured plugin was refused.
    #[error("{}: {}", PLUGIN_VAR, .0)]
    Plugin(#[source] LoadError),
    /// The kind asked for is not in this build (`choose`'s refusal).
    #[error(transparent)]
    Unavailable(#[from] SelectError),
}

/// What an unknown kind's message adds about a configured plugin.
fn plugin_note(plugin: Option<&Path>) -> String {
    plugin.map_or_else(String::new, |p| {
        format!("; {PLUGIN_VAR}={} would add gmp (plugin)", p.display())
    })
}

/// Decide the backend from the two variables' values without fixing it for the
/// process. Warnings (a plugin ignored under `pure`) go to `warn`.
pub fn resolve(
    choice: Option<&OsStr>,
    plugin: Option<&OsStr>,
    warn: &mut dyn FnMut(&str),
) -> Result<Selected, BackendChoiceError> {
    link();
    let choice = match choice {
        None => "",
        Some(c) => match c.to_str() {
            Some(s) => s,
            None => {
                return Err(BackendChoiceError::NotText(
                    c.to_string_lossy().into_owned(),
                ))
            }
        },
    };
    let plugin = plugin.filter(|p| !p.is_empty()).map(Path::new);
    if !matches!(choice, "" | "auto" | "gmp" | "pure") {
        // The same refusal `choose` gives, plus the plugin that is configured.
        let kind = numerics::choose(choice, None)
            .err()
            .unwrap_or_else(|| SelectError(format!("unknown backend {choice}")));
        return Err(BackendChoiceError::UnknownKind {
            kind,
            plugin: plugin.map(Path::to_path_buf),
        });
    }
    let loaded = match plugin {
        Some(p) if choice == "pure" => {
            warn(&format!(
                "{PLUGIN_VAR}={} is ignored because {CHOICE_VAR}=pure",
                p.display()
            ));
            None
        }
        Some(p) => match load_plugin(p) {
            Ok(plugin) => Some((plugin, p)),
            Err(e) => return Err(BackendChoiceError::Plugin(e)),
        },
        None => None,
    };
    let mut selected = numerics::choose(choice, loaded.map(|(p, _)| p as &'static dyn Numerics))?;
    if let Some((_, path)) = loaded {
        if selected.origin == BackendOrigin::Plugin {
            let how = if choice == "gmp" {
                format!("{CHOICE_VAR}=gmp")
            } else {
                "auto".to_string()
            };
            selected.reason = leak(format!("{how}: plugin loaded from {}", path.display()));
        }
    }
    Ok(selected)
}

/// Fix the process's numeric backend from `choice` and `plugin` (the values of
/// `AJISAI_NUMERICS` and `AJISAI_NUMERICS_PLUGIN`). The first successful call fixes the
/// backend for the life of the process; later calls answer that backend (MCP-13).
pub fn select_with(
    choice: Option<OsString>,
    plugin: Option<OsString>,
    warn: &mut dyn FnMut(&str),
) -> Result<Selected, BackendChoiceError> {
    let selected = resolve(choice.as_deref(), plugin.as_deref(), warn)?;
    Ok(numerics::install(selected))
}

/// Fix the process's numeric backend from `choice` (the value of `AJISAI_NUMERICS`;
/// unset or empty means `auto`) and the process's `AJISAI_NUMERICS_PLUGIN`. Warnings go
/// to stderr as `warning: …` lines; the error is one operator-facing line.
pub fn select(choice: Option<OsString>) -> Result<Selected, BackendChoiceError> {
    select_with(choice, std::env::var_os(PLUGIN_VAR), &mut |w| {
        eprintln!("warning: {w}")
    })
}

/// [`select`] with the process environment.
pub fn select_from_env() -> Result<Selected, BackendChoiceError> {
    select(std::env::var_os(CHOICE_VAR))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_quiet(
        choice: &str,
        plugin: Option<&str>,
    ) -> (Result<Selected, BackendChoiceError>, Vec<String>) {
        let mut warnings = Vec::new();
        let r = resolve(Some(OsStr::new(choice)), plugin.map(OsStr::new), &mut |w| {
            warnings.push(w.to_string())
        });
        (r, warnings)
    }

    #[test]
    fn pure_ignores_a_plugin_with_a_warning() {
        let (r, warnings) = resolve_quiet("pure", Some("/nonexistent/libplugin.so"));
        let s = r.expect("pure is always available");
        assert_eq!(s.backend.kind().id(), "pure");
        assert_eq!(s.origin, BackendOrigin::Builtin);
        assert_eq!(
            warnings,
            vec![
                "AJISAI_NUMERICS_PLUGIN=/nonexistent/libplugin.so is ignored because AJISAI_NUMERICS=pure"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_missing_plugin_is_a_fault_not_a_fallback() {
        for choice in ["", "auto", "gmp"] {
            let (r, warnings) = resolve_quiet(choice, Some("/nonexistent/libplugin.so"));
            let e = r.expect_err("a missing plugin is refused");
            assert!(matches!(e, BackendChoiceError::Plugin(_)), "{e:?}");
            let e = e.to_string();
            assert!(
                e.starts_with(
                    "AJISAI_NUMERICS_PLUGIN: numeric plugin /nonexistent/libplugin.so: expected"
                ),
                "{e}"
            );
            assert!(e.contains("found no file at that path"), "{e}");
            assert!(!e.contains('\n'));
            assert!(warnings.is_empty());
        }
    }

    #[test]
    fn a_choice_that_is_not_text_is_refused_and_shown() {
        use std::os::unix::ffi::OsStrExt;
        let mut warnings = Vec::new();
        let r = resolve(Some(OsStr::from_bytes(b"gm\xffp")), None, &mut |w| {
            warnings.push(w.to_string())
        });
        let e = r.expect_err("not text");
        assert!(matches!(e, BackendChoiceError::NotText(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "AJISAI_NUMERICS=gm\u{fffd}p is not valid text; expected auto, gmp or pure"
        );
        assert!(warnings.is_empty());
    }

    #[test]
    fn an_empty_plugin_variable_is_unset() {
        let (r, warnings) = resolve_quiet("auto", Some(""));
        let s = r.expect("auto without a plugin");
        assert_eq!(s.origin, BackendOrigin::Builtin);
        assert!(warnings.is_empty());
    }

    #[test]
    fn unknown_choices_list_the_available_backends() {
        for bad in ["GMP", "fast", "auto ", "Pure"] {
            let (r, _) = resolve_quiet(bad, None);
            let e = r.expect_err("unknown value");
            assert!(matches!(e, BackendChoiceError::UnknownKind { .. }), "{e:?}");
            let e = e.to_string();
            assert!(e.contains("is not one of auto, gmp, pure"), "{e}");
            assert!(e.contains("pure (builtin)"), "{e}");
        }
        let (r, _) = resolve_quiet("fast", Some("/x/libp.so"));
        assert!(r
            .expect_err("unknown value")
            .to_string()
            .ends_with("; AJISAI_NUMERICS_PLUGIN=/x/libp.so would add gmp (plugin)"));
    }

    #[test]
    fn auto_prefers_the_builtin_gmp_when_compiled_in() {
        let (r, _) = resolve_quiet("auto", None);
        let s = r.expect("auto");
        let expected = if GMP_BUILTIN { "gmp" } else { "pure" };
        assert_eq!(s.backend.kind().id(), expected);
        let (r, _) = resolve_quiet("gmp", None);
        if GMP_BUILTIN {
            assert!(r
                .expect("gmp built in")
                .backend
                .library()
                .starts_with("GMP "));
        } else {
            let e = r.expect_err("no gmp in the portable build");
            assert!(matches!(e, BackendChoiceError::Unavailable(_)), "{e:?}");
            let e = e.to_string();
            assert!(
                e.contains("no gmp backend is available; available: pure (builtin)"),
                "{e}"
            );
        }
    }
}
