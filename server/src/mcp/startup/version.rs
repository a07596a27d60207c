//! What `--version` and `--doctor` print and what both, and serve mode, start with: the
//! exit codes, the version block (MCP-7; docs/mcp/index.md) and the async runtime.

use crate::mcp::{PROGRAM, SERVER_VERSION};
use ajisai_core::numerics::Selected;
use ajisai_core::Profile;
use ajisai_host::backend::BackendChoiceError;
use ajisai_host::content;
use ajisai_host::phrasebook::{Fault, Origin, ServedPhrasebook};

/// Exit code: served until EOF, printed help/version, or every doctor check passed.
pub const EXIT_OK: u8 = 0;
/// Exit code: a startup fault, or a failing doctor check.
pub const EXIT_FAULT: u8 = 1;
/// Exit code: a usage error.
pub const EXIT_USAGE: u8 = 2;

/// The `numerics` line's value, or why it is unavailable.
pub fn numerics_text(selected: &Result<Selected, BackendChoiceError>) -> String {
    match selected {
        Ok(s) => {
            let p = s.provenance();
            format!("{} ({}, {})", p.kind, p.library, p.origin)
        }
        Err(e) => format!("unavailable ({e})"),
    }
}

/// The `assets` line's value: the asset digest with the effective phrasebook (MCP-83; docs/mcp/resources.md),
/// or why it is unavailable.
pub fn assets_text(phrasebook: &Result<ServedPhrasebook, Fault>) -> String {
    match phrasebook {
        Ok(p) => p.asset_digest().to_string(),
        Err(Fault::Unreadable { .. }) => {
            "unavailable (the AJISAI_PHRASEBOOK file cannot be read)".to_string()
        }
        Err(Fault::Invalid {
            origin: Origin::Override(_),
            ..
        }) => "unavailable (the AJISAI_PHRASEBOOK file is not a valid phrasebook)".to_string(),
        Err(Fault::Invalid { .. }) => {
            "unavailable (the embedded phrasebook does not verify)".to_string()
        }
    }
}

/// The seven lines of `--version` (MCP-7), with the asset digest of the effective
/// phrasebook.
pub fn version_text(
    selected: &Result<Selected, BackendChoiceError>,
    phrasebook: &Result<ServedPhrasebook, Fault>,
) -> String {
    let c = content::content();
    format!(
        "{PROGRAM} {SERVER_VERSION}\nengine: {}\nspecification: {}\nassets: {}\nregistry: {}\nnumerics: {}\nprofile: {}\n",
        ajisai_core::ENGINE_VERSION,
        ajisai_core::SPECIFICATION_VERSION,
        assets_text(phrasebook),
        c.registry_digest,
        numerics_text(selected),
        Profile::MCP_LOCAL_STDIO.name
    )
}

pub use crate::web::runtime;
