// The MCP part of the install smoke tests (MCP-92; docs/mcp/verification.md#installing),
// run by .ci/install-smoke (the `cargo install`ed binary) and .ci/package-smoke (the npm
// packages through `npx`, the wheel, the desktop bundle): the official TypeScript SDK
// client spawns the *installed* server, with PATH holding only the install's directories,
// a temporary HOME, no AJISAI_* variable, and an empty working directory, so nothing of
// the repository is reachable from the server.
//
// usage: node install.mjs <PATH> <working dir> <temporary home> <expected default backend
//          kind> [<plugin library> | -] [-- <command> <argument>...]
// The command defaults to `ajisai-mcp-server`, found on <PATH>.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const dashes = argv.indexOf("--");
const [bin, cwd, home, defaultKind, pluginArg] = dashes < 0 ? argv : argv.slice(0, dashes);
const [command, ...args] = dashes < 0 ? ["ajisai-mcp-server"] : argv.slice(dashes + 1);
const plugin = pluginArg === "-" ? undefined : pluginArg;
if (!bin || !cwd || !home || !defaultKind || !command) {
  console.error("usage: node install.mjs <PATH> <cwd> <temp home> <default kind> [plugin|-] [-- command args...]");
  process.exit(2);
}

const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
};

async function connect(extraEnv = {}) {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { PATH: bin, HOME: home, ...extraEnv },
    stderr: "ignore",
  });
  const client = new Client({ name: "ajisai-install-smoke", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function backendOf(client) {
  const r = await client.callTool({ name: "compute", arguments: { source: "1 2 ADD" } });
  check(r.structuredContent?.stackDisplay?.[0] === "3/1", `1 2 ADD → 3/1: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent?.mcp?.backend;
}

// The default process.
{
  const client = await connect();
  const { tools } = await client.listTools();
  check(tools.length === 4, `four tools, got ${tools.map((t) => t.name)}`);
  const backend = await backendOf(client);
  check(backend?.kind === defaultKind && backend?.origin === "builtin",
    `default backend ${defaultKind} (builtin), got ${JSON.stringify(backend)}`);
  const exact = await client.callTool({ name: "compute", arguments: { source: "2 3 DIV 1 3 DIV ADD" } });
  check(exact.structuredContent?.stackDisplay?.[0] === "1/1", "2 3 DIV 1 3 DIV ADD → 1/1");
  const { resources } = await client.listResources();
  check(resources.length === 6, `the six resources: ${resources.map((r) => r.uri)}`);
  for (const r of resources) {
    const { contents } = await client.readResource({ uri: r.uri });
    check(contents[0]?.text?.length > 0, `${r.uri} reads`);
  }
  const { contents } = await client.readResource({ uri: "ajisai://words/ADD" });
  check(JSON.parse(contents[0].text).matches?.[0]?.name === "ADD", "ajisai://words/ADD reads ADD");
  console.log(`installed server: ${tools.length} tools, ${resources.length} resources and a template read, backend ${backend?.kind} (${backend?.library})`);
  await client.close();
}

// Selection is per process: a separate one for each choice.
{
  const client = await connect({ AJISAI_NUMERICS: "pure" });
  const backend = await backendOf(client);
  check(backend?.kind === "pure", `AJISAI_NUMERICS=pure selects pure, got ${JSON.stringify(backend)}`);
  await client.close();
}
if (plugin) {
  const client = await connect({ AJISAI_NUMERICS_PLUGIN: plugin });
  const backend = await backendOf(client);
  check(backend?.kind === "gmp" && backend?.origin === "plugin",
    `the installed plugin selects gmp (plugin), got ${JSON.stringify(backend)}`);
  await client.close();
}

if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${f}`);
  process.exit(1);
}
