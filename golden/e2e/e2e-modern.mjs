// End-to-end test of ajisai-mcp-server with the official MCP TypeScript SDK v2 client
// (`@modelcontextprotocol/client`) speaking MCP revision 2026-07-28: no `initialize`,
// `server/discover` instead, and the reserved `_meta` keys on every request. The client
// pins the revision (`versionNegotiation: { mode: { pin: "2026-07-28" } }`), calls
// compute (checked as e2e.mjs checks results, checks.mjs's `envelopeOf`), lists the
// tools, reads ajisai://limits and provokes one host error; the negotiated version is
// the client's `getNegotiatedProtocolVersion()`. Every message the client sends (and, on
// stdio, receives) is recorded and checked. Then the client's other two modes connect
// once each: `auto` (probe, then 2026-07-28) and the default `legacy` (initialize at
// the newest 2025 revision).
//
// Over stdio the v2 client sends `server/discover` on a short-lived sibling process of
// the same command and then starts the session process, which sees no handshake at all;
// over HTTP the probe goes to the same URL.
//
// usage: node e2e-modern.mjs <URL of /mcp> [--token T]
//        node e2e-modern.mjs --stdio <path of ajisai-mcp-server>
// Prints one JSON summary line on stdout; failures go to stderr and exit 1.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { readFileSync } from "node:fs";
import { isDeepStrictEqual, parseArgs } from "node:util";
import { check, envelopeOf, finish, TOOL_NAMES } from "./checks.mjs";

const USAGE = "usage: node e2e-modern.mjs <URL of /mcp> [--token T] | --stdio <path of ajisai-mcp-server>";
let args;
try {
  args = parseArgs({ allowPositionals: true, options: { token: { type: "string" }, stdio: { type: "string" } } });
} catch (e) {
  console.error(`${e.message}\n${USAGE}`);
  process.exit(2);
}
const { token, stdio } = args.values;
const [url] = args.positionals;
const usable = stdio !== undefined
  ? args.positionals.length === 0 && token === undefined
  : args.positionals.length === 1 && URL.canParse(url);
if (!usable) {
  console.error(USAGE);
  process.exit(2);
}

const REVISION = "2026-07-28";
const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
};
const transportName = stdio !== undefined ? "stdio" : "streamable-http";
const profile = stdio !== undefined ? "mcp-local-stdio" : "mcp-remote-http";
const clientVersion = JSON.parse(readFileSync(
  new URL("./node_modules/@modelcontextprotocol/client/package.json", import.meta.url), "utf8")).version;

// ---- recording the wire ----------------------------------------------------------------
// `sent`: every JSON-RPC message a client sent, with the HTTP request's headers or, on
// stdio, which process (probe sibling or session) it went to; `received`: the raw
// answers (HTTP bodies; stdio messages as the session transport delivered them).
let sent = [];
let received = [];

function recordingFetch() {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    let message;
    try {
      message = JSON.parse(init?.body ?? "null");
    } catch {
      message = undefined;
    }
    const response = await fetch(input, init);
    const entry = {
      verb: init?.method ?? "GET",
      message,
      protocolHeader: headers.get("mcp-protocol-version"),
      accept: headers.get("accept"),
      status: response.status,
      contentType: response.headers.get("content-type"),
      sessionId: response.headers.get("mcp-session-id"),
    };
    if (message !== undefined && message !== null) sent.push(entry);
    if (/^application\/json\b/.test(entry.contentType ?? "")) {
      try {
        received.push(JSON.parse(await response.clone().text()));
      } catch {
        // Not JSON after all: the status checks below name it.
      }
    }
    return response;
  };
}

// Every StdioClientTransport's `send`, the probe sibling's included (the client clones the
// transport through its constructor, so the prototype is where both meet).
const stdioSend = StdioClientTransport.prototype.send;
let session;
StdioClientTransport.prototype.send = function (message, options) {
  sent.push({ process: this === session ? "session" : "sibling", message });
  return stdioSend.call(this, message, options);
};

function newTransport() {
  if (stdio !== undefined) {
    const env = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (!k.startsWith("AJISAI_") && ["PATH", "HOME", "LANG", "TMPDIR"].includes(k)) env[k] = v;
    }
    session = new StdioClientTransport({ command: stdio, args: [], env, stderr: "ignore" });
    return session;
  }
  return new StreamableHTTPClientTransport(new URL(url), {
    fetch: recordingFetch(),
    ...(token !== undefined ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}),
  });
}

async function connect(mode) {
  sent = [];
  received = [];
  const transport = newTransport();
  const client = new Client({ name: "ajisai-e2e-modern", version: "1.0.0" },
    mode === undefined ? {} : { versionNegotiation: { mode } });
  try {
    await client.connect(transport);
  } catch (e) {
    check(false, `connect (${JSON.stringify(mode ?? "default")}) over ${transportName}: ${e.message?.trim()}`);
    return undefined;
  }
  if (stdio !== undefined) {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      received.push(message);
      deliver?.(message, extra);
    };
  }
  return client;
}

const methods = (entries) => entries.map((e) => e.message?.method ?? (e.message?.id !== undefined ? "(response)" : "?"));

// ---- 2026-07-28, pinned ----------------------------------------------------------------
const client = await connect({ pin: REVISION });
if (client === undefined) finish({});
const handshake = sent.slice();
const negotiated = client.getNegotiatedProtocolVersion();
check(negotiated === REVISION, `negotiated protocol version ${REVISION}, got ${negotiated}`);
check(client.getProtocolEra() === "modern", `protocol era modern, got ${client.getProtocolEra()}`);
const discover = client.getDiscoverResult();
check(Array.isArray(discover?.supportedVersions) && discover.supportedVersions.includes(REVISION) &&
  discover.supportedVersions.includes("2025-11-25"),
  `server/discover lists ${REVISION} and 2025-11-25: ${JSON.stringify(discover?.supportedVersions)}`);
check(client.getServerVersion()?.name === "ajisai", `serverInfo.name is ajisai: ${JSON.stringify(client.getServerVersion())}`);
const caps = client.getServerCapabilities();
check(caps?.tools && caps?.resources && !caps?.prompts, `capabilities: ${JSON.stringify(caps)}`);
check(typeof client.getInstructions() === "string" && client.getInstructions().includes("ajisai://guide/quickstart"),
  "instructions name the quickstart");

// The handshake: server/discover (on a sibling over stdio), never initialize.
check(methods(handshake).includes("server/discover"), `server/discover sent: ${methods(handshake)}`);
check(!methods(handshake).includes("initialize"), `no initialize: ${methods(handshake)}`);
if (stdio !== undefined) {
  check(handshake.every((e) => e.process === "sibling"), "over stdio the probe goes to the sibling process");
}

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
check(isDeepStrictEqual(names, TOOL_NAMES), `tools in order: ${names}`);
for (const t of tools) {
  check(t.outputSchema?.$id === "ajisai://schema/result", `${t.name}: outputSchema is the result schema`);
}
{
  const result = await client.callTool({ name: "compute", arguments: { source: "2 3 DIV 1 3 DIV ADD" } });
  const env = envelopeOf(result, "compute 2 3 DIV 1 3 DIV ADD", profile);
  check(env.status === "ok" && env.outcome === "value", "compute: ok value");
  check(isDeepStrictEqual(env.stackDisplay, ["1/1"]), `compute: 1/1, got ${env.stackDisplay}`);
}
{
  const result = await client.callTool({ name: "evaluate", arguments: { source: "1" } });
  const env = envelopeOf(result, "unknown tool", profile);
  check(result.isError === true && env.error?.code === "unknownTool", `unknown tool: ${JSON.stringify(env)}`);
}
{
  const { contents } = await client.readResource({ uri: "ajisai://limits" });
  check(contents.length === 1 && contents[0].uri === "ajisai://limits" && contents[0].mimeType === "application/json",
    "ajisai://limits: one contents item");
  const doc = JSON.parse(contents[0].text ?? "null");
  check(doc?.profile === profile && Object.keys(doc?.limits ?? {}).length === 13,
    `ajisai://limits: profile ${profile}, thirteen limits, got ${doc?.profile}`);
}

// Every request after the handshake names the revision, the client and its capabilities
// in `_meta` (and, over HTTP, in MCP-Protocol-Version); the server frames each answer as
// 2026-07-28 does (`resultType`).
const calls = sent.slice(handshake.length).filter((e) => e.message?.method !== undefined);
check(!methods(calls).includes("initialize") && !methods(calls).includes("notifications/initialized"),
  `no initialize afterwards: ${methods(calls)}`);
for (const e of calls) {
  const label = `${e.message.method} (${e.message.id ?? "notification"})`;
  const meta = e.message.params?._meta ?? {};
  check(meta[META.protocolVersion] === REVISION, `${label}: _meta protocolVersion ${REVISION}`);
  check(meta[META.clientInfo]?.name === "ajisai-e2e-modern", `${label}: _meta clientInfo`);
  check(typeof meta[META.clientCapabilities] === "object", `${label}: _meta clientCapabilities`);
  if (stdio === undefined) {
    check(e.protocolHeader === REVISION, `${label}: MCP-Protocol-Version ${e.protocolHeader}`);
    check(e.status === 200 && /^application\/json\b/.test(e.contentType ?? ""),
      `${label}: 200 application/json, got ${e.status} ${e.contentType}`);
    check(e.sessionId === null, `${label}: no Mcp-Session-Id, got ${e.sessionId}`);
  } else {
    check(e.process === "session", `${label}: sent to the session process`);
  }
}
const answers = received.filter((m) => m?.id !== undefined && calls.some((e) => e.message.id === m.id));
check(answers.length === calls.filter((e) => e.message.id !== undefined).length,
  `every request answered: ${answers.length} of ${calls.length}`);
for (const m of answers) {
  check(m.result?.resultType === "complete", `answer ${m.id}: resultType complete, got ${JSON.stringify(m.result?.resultType ?? m.error)}`);
}
const wire = { handshake: methods(handshake), requests: methods(calls) };
await client.close();

// ---- the client's other modes ------------------------------------------------------------
const modes = { pin: negotiated };
for (const [name, mode, want] of [["auto", "auto", REVISION], ["legacy", undefined, "2025-11-25"]]) {
  const c = await connect(mode);
  if (c === undefined) continue;
  const version = c.getNegotiatedProtocolVersion();
  modes[name] = version;
  check(version === want, `mode ${name}: protocol version ${want}, got ${version}`);
  const sentMethods = methods(sent);
  check(sentMethods.includes(name === "legacy" ? "initialize" : "server/discover"),
    `mode ${name}: handshake ${sentMethods}`);
  const result = await c.callTool({ name: "compute", arguments: { source: "2 3 DIV 1 3 DIV ADD" } });
  const env = envelopeOf(result, `mode ${name}: compute`, profile);
  check(isDeepStrictEqual(env.stackDisplay, ["1/1"]), `mode ${name}: 1/1, got ${env.stackDisplay}`);
  await c.close();
}
StdioClientTransport.prototype.send = stdioSend;

finish({
  client: "@modelcontextprotocol/client",
  version: clientVersion,
  transport: transportName,
  protocolVersion: negotiated,
  modes,
  tools: names.length,
  wire,
});
