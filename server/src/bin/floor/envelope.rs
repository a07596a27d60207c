//! What the benchmark floors answer: the envelope of `1 2 ADD`, shared by
//! `ajisai-floor-server` and `ajisai-handoff-floor`.

/// The envelope `ajisai-mcp-server` answers for `1 2 ADD` (the size the floor delivers).
pub const ENVELOPE: &str = r#"{"schemaVersion":9,"status":"ok","outcome":"value","specificationVersion":"1.0.0-beta.2","stack":[{"type":"number","value":{"numerator":"3","denominator":"1"}}],"stackDisplay":["3/1"],"output":[],"resourceUsage":{"executionSteps":1,"numericWork":1,"collectionWork":0},"mcp":{"serverVersion":"0.1.0","engineVersion":"0.1.0","assetDigest":"52fad7a6f06803bf3221dae628279e34fa5d82544defb8d6cae940be004b1546","limitProfile":"mcp-local-stdio","backend":{"kind":"gmp","library":"GMP 6.3.0","origin":"builtin"}}}"#;
