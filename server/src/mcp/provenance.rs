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
        let mut json = String::new();
        let mut o = ObjectWriter::new(&mut json);
        o.str("serverVersion", super::SERVER_VERSION)
            .str("engineVersion", ajisai_core::ENGINE_VERSION)
            .str("assetDigest", asset_digest)
            .str("limitProfile", profile);
        backend.write_field(&mut o);
        o.end();
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
