// End-to-end test of ajisai-mcp-server with the official MCP TypeScript SDK client over
// real stdio (MCP-87; docs/mcp/verification.md): list tools and resources, call every
// tool, read every resource and a template URI, provoke host errors, and measure the
// seven performance cases as a JavaScript client sees them (MCP-93). The checks are
// checks.mjs's, shared with e2e-http.mjs.
//
// usage: node e2e.mjs <path of ajisai-mcp-server>
// Prints one JSON summary line on stdout; failures go to stderr and exit 1.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { checkServer, finish, performanceSizes } from "./checks.mjs";

const server = process.argv[2];
if (!server) {
  console.error("usage: node e2e.mjs <path of ajisai-mcp-server>");
  process.exit(2);
}

// The server's environment: the client SDK's safe defaults, with every AJISAI_* variable
// left out so the default backend and the embedded phrasebook apply.
const env = {};
for (const [k, v] of Object.entries(process.env)) {
  if (!k.startsWith("AJISAI_") && ["PATH", "HOME", "LANG", "TMPDIR"].includes(k)) env[k] = v;
}

const transport = new StdioClientTransport({ command: server, args: [], env, stderr: "ignore" });
const client = new Client({ name: "ajisai-e2e", version: "1.0.0" });
await client.connect(transport);

const { names, resources, call } = await checkServer(client, { profile: "mcp-local-stdio" });

// ---- the seven performance cases, measured as MCP-93 defines ---------------------------
const sizes = await performanceSizes(call);

await client.close();

finish({ sdk: "@modelcontextprotocol/sdk", tools: names.length, resources: resources.length, sizes });
