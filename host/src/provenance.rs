//! The `mcp` provenance block (MCP-37; docs/mcp/envelope.md): `{serverVersion, engineVersion, assetDigest,
//! limitProfile, backend}`, rendered once per server and appended to every result.

use ajisai_core::json::HostFields;
use ajisai_core::numerics::BackendProvenance;
use serde_json::value::RawValue;

/// The provenance of one server instance.
#[derive(Clone, Debug)]
pub struct Provenance {
    /// The block's compact JSON.
    block: Box<RawValue>,
    /// `{"mcp": block}`: the host fields of a result without a prelude.
    host: HostFields,
}

impl Provenance {
    /// The block for this build, `assetDigest`, the profile name and the backend that runs.
    pub fn new(asset_digest: &str, profile: &str, backend: &BackendProvenance) -> Provenance {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Block<'a> {
            server_version: &'a str,
            engine_version: &'a str,
            asset_digest: &'a str,
            limit_profile: &'a str,
            backend: &'a BackendProvenance,
        }
        let block = Block {
            server_version: crate::SERVER_VERSION,
            engine_version: ajisai_core::ENGINE_VERSION,
            asset_digest,
            limit_profile: profile,
            backend,
        };
        let block = serde_json::value::to_raw_value(&block).expect("a flat block of strings");
        let host = HostFields::of(&McpOnly { mcp: &block });
        Provenance { block, host }
    }

    /// The block's compact JSON.
    pub fn json(&self) -> &str {
        self.block.get()
    }

    /// The block, for host records that carry it.
    pub fn block(&self) -> &RawValue {
        &self.block
    }

    /// The host fields of a result that carries no prelude: `"mcp": {…}`.
    pub fn host_fields(&self) -> &HostFields {
        &self.host
    }
}

impl PartialEq for Provenance {
    fn eq(&self, other: &Provenance) -> bool {
        self.json() == other.json()
    }
}

impl Eq for Provenance {}

/// The host fields of a result that carries no prelude.
#[derive(serde::Serialize)]
struct McpOnly<'a> {
    mcp: &'a RawValue,
}
