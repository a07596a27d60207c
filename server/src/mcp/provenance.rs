//! The `mcp` provenance block (MCP-37): `{serverVersion, engineVersion, assetDigest,
//! limitProfile, backend}`, rendered once per server and appended to every result.

use ajisai_core::json::ObjectWriter;
use ajisai_core::numerics::BackendProvenance;

/// The provenance of one server instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The block's compact JSON.
    json: String,
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
            server_version: super::SERVER_VERSION,
            engine_version: ajisai_core::ENGINE_VERSION,
            asset_digest,
            limit_profile: profile,
            backend,
        };
        let json = serde_json::to_string(&block).expect("a flat block of strings");
        Provenance { json }
    }

    /// The block's compact JSON.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// Append `"mcp": {…}` to an envelope being written (the host fields of the engine's
    /// envelope functions).
    pub fn write(&self, o: &mut ObjectWriter<'_>) {
        o.raw("mcp", &self.json);
    }
}
