// End-to-end test of `ajisai-mcp-server --http` with the official MCP TypeScript SDK v1
// client over Streamable HTTP: the checks of e2e.mjs (checks.mjs: list tools and
// resources, call every tool, read every resource and template URIs, provoke host
// errors), every tool result held to limit profile mcp-remote-http, a missing `source`,
// the template URI ajisai://words/ADD, the wire as the server is meant to answer it
// (stateless: no Mcp-Session-Id; JSON answers, not event streams), two clients at once,
// and, with --token, the bearer token (a client without it or with a wrong one is
// refused with 401). With --stdio, every tool result is compared with stdio's: the same
// bytes but for the profile name.
//
// usage: node e2e-http.mjs <URL of /mcp> [--token T] [--stdio <path of ajisai-mcp-server>]
// Prints one JSON summary line on stdout; failures go to stderr and exit 1.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { isDeepStrictEqual, parseArgs } from "node:util";
import { caller, check, checkServer, finish, performanceCases, performanceSizes } from "./checks.mjs";

const USAGE = "usage: node e2e-http.mjs <URL of /mcp> [--token T] [--stdio <path of ajisai-mcp-server>]";
let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: { token: { type: "string" }, stdio: { type: "string" } },
  });
} catch (e) {
  console.error(`${e.message}\n${USAGE}`);
  process.exit(2);
}
const [url] = args.positionals;
if (!url || args.positionals.length !== 1 || !URL.canParse(url)) {
  console.error(USAGE);
  process.exit(2);
}
const { token, stdio } = args.values;
const PROFILE = "mcp-remote-http";

// Every HTTP exchange of the clients below, as the SDK's fetch saw it, with whether the
// client sent the token of --token (`own`) or tried another on purpose.
const exchanges = [];
const recordingFetch = (own) => async (input, init) => {
  const response = await fetch(input, init);
  const headers = new Headers(init?.headers);
  let method;
  try {
    method = JSON.parse(init?.body ?? "null")?.method;
  } catch {
    method = undefined;
  }
  exchanges.push({
    own,
    verb: init?.method ?? "GET",
    rpc: method,
    accept: headers.get("accept"),
    authorization: headers.has("authorization"),
    status: response.status,
    contentType: response.headers.get("content-type"),
    sessionId: response.headers.get("mcp-session-id"),
  });
  return response;
};

// `bearer`: the token to send (null: none); by default --token's.
function httpClient(name, bearer = token ?? null) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: recordingFetch(bearer === (token ?? null)),
    ...(bearer !== null ? { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } } : {}),
  });
  return { transport, client: new Client({ name, version: "1.0.0" }) };
}

// ---- the e2e.mjs checks over HTTP ------------------------------------------------------
const main = httpClient("ajisai-e2e-http");
try {
  await main.client.connect(main.transport);
} catch (e) {
  check(false, `connect to ${url}${token === undefined ? " without a token" : " with --token"}: ${e.message.trim()}`);
  finish({});
}
const negotiated = main.transport.protocolVersion;
check(negotiated === LATEST_PROTOCOL_VERSION,
  `negotiated protocol version ${LATEST_PROTOCOL_VERSION}, got ${negotiated}`);
check(main.transport.sessionId === undefined, `stateless: no session id, got ${main.transport.sessionId}`);

const { names, resources, call } = await checkServer(main.client, { profile: PROFILE, everyEnvelope: true });

// A missing source is a host error too (MCP-19; docs/mcp/host-errors.md).
{
  const { result, env } = await call("compute", {}, "compute without source");
  check(result.isError === true && env.error?.code === "invalidRequest" &&
    env.error.message === "Missing required argument `source` for compute.",
    `missing source: ${JSON.stringify(env)}`);
}
// The template URI with the canonical name.
{
  const { contents } = await main.client.readResource({ uri: "ajisai://words/ADD" });
  check(contents.length === 1 && contents[0].uri === "ajisai://words/ADD" &&
    contents[0].mimeType === "application/json", "ajisai://words/ADD: one contents item");
  const doc = JSON.parse(contents[0].text);
  check(doc.matches?.[0]?.name === "ADD", "ajisai://words/ADD reads ADD");
  check(doc.mcp?.limitProfile === PROFILE, `ajisai://words/ADD: mcp.limitProfile, got ${doc.mcp?.limitProfile}`);
  const { env } = await call("word_contract", { word: "ADD" });
  check(JSON.stringify(env) === contents[0].text, "ajisai://words/ADD: the same text as word_contract");
}
const sizes = await performanceSizes(call);

// ---- two clients at once ---------------------------------------------------------------
// Both connect at the same time, then sixteen calls run interleaved; each client gets
// its own answers.
const pair = [httpClient("ajisai-e2e-http-a"), httpClient("ajisai-e2e-http-b")];
await Promise.all(pair.map(({ client, transport }) => client.connect(transport)));
const pairCalls = pair.map(({ client }) => caller(client, PROFILE));
const expected = [];
const pending = [];
for (let i = 1; i <= 8; i++) {
  for (const [k, source, display] of [[0, `${i} ${i} MUL`, `${i * i}/1`], [1, `${i} 1000 ADD`, `${i + 1000}/1`]]) {
    expected.push([k, source, display]);
    pending.push(pairCalls[k]("compute", { source }, `client ${"ab"[k]}: ${source}`));
  }
}
const answers = await Promise.all(pending);
answers.forEach(({ env }, j) => {
  const [k, source, display] = expected[j];
  check(env.status === "ok" && isDeepStrictEqual(env.stackDisplay, [display]),
    `client ${"ab"[k]}: ${source} → ${display}, got ${JSON.stringify(env.stackDisplay)}`);
});
{
  const lists = await Promise.all(pair.map(({ client }) => client.listTools()));
  for (const [k, { tools }] of lists.entries()) {
    check(isDeepStrictEqual(tools.map((t) => t.name), names), `client ${"ab"[k]}: tools/list`);
  }
}
await Promise.all(pair.map(({ client }) => client.close()));

// ---- the bearer token -------------------------------------------------------------------
// With --token the server is expected to require it: no token, or a wrong one, is a 401.
const refusals = {};
if (token !== undefined) {
  for (const [label, bearer] of [["no token", null], ["a wrong token", `${token}-wrong`]]) {
    const before = exchanges.length;
    const { client, transport } = httpClient(`ajisai-e2e-http-${label.replace(/ /g, "-")}`, bearer);
    try {
      await client.connect(transport);
      check(false, `a client with ${label} is refused`);
      await client.close();
    } catch (e) {
      const statuses = exchanges.slice(before).map((x) => x.status);
      refusals[label] = statuses;
      check(statuses.length > 0 && statuses.every((s) => s === 401),
        `a client with ${label} gets 401: statuses ${statuses}, ${e.message}`);
    }
  }
}

// ---- the wire --------------------------------------------------------------------------
const answered = exchanges.filter((x) => x.own);
for (const x of answered) {
  const label = `HTTP ${x.verb} ${x.rpc ?? "-"}`;
  check(x.sessionId === null, `${label}: no Mcp-Session-Id (stateless), got ${x.sessionId}`);
  check(x.authorization === (token !== undefined), `${label}: Authorization sent exactly with --token`);
  if (x.verb === "POST") {
    const accept = (x.accept ?? "").split(",").map((s) => s.trim());
    check(accept.includes("application/json") && accept.includes("text/event-stream"),
      `${label}: Accept ${x.accept}`);
    if (x.rpc?.startsWith("notifications/")) {
      check(x.status === 202, `${label}: 202 for a notification, got ${x.status}`);
    } else {
      check(x.status === 200 && /^application\/json\b/.test(x.contentType ?? ""),
        `${label}: 200 application/json, got ${x.status} ${x.contentType}`);
    }
  }
}
const posts = answered.filter((x) => x.verb === "POST").length;
const nonPost = [...new Set(answered.filter((x) => x.verb !== "POST").map((x) => `${x.verb} ${x.status}`))];
await main.client.close();

// ---- the same bytes as stdio's, but the profile ------------------------------------------
let compared = 0;
if (stdio !== undefined) {
  const env = { PATH: process.env.PATH ?? "" };
  const local = new Client({ name: "ajisai-e2e-http-stdio", version: "1.0.0" });
  await local.connect(new StdioClientTransport({ command: stdio, args: [], env, stderr: "ignore" }));
  const remote = httpClient("ajisai-e2e-http-compare");
  await remote.client.connect(remote.transport);
  await Promise.all([local.listTools(), remote.client.listTools()]);
  const cases = [
    ...performanceCases(),
    ["unknown tool", "evaluate", { source: "1" }],
    ["missing source", "compute", {}],
    ["undeclared argument", "compute", { source: "1", extra: true }],
    ["source too large", "compute", { source: "\u3042".repeat(21846) }],
  ];
  for (const [id, tool, args] of cases) {
    const [a, b] = await Promise.all([
      local.callTool({ name: tool, arguments: args }),
      remote.client.callTool({ name: tool, arguments: args }),
    ]);
    // stdio's result with its profile named mcp-remote-http, in the envelope and its text.
    const renamed = structuredClone(a);
    if (renamed.structuredContent?.mcp) renamed.structuredContent.mcp.limitProfile = PROFILE;
    for (const block of renamed.content ?? []) {
      block.text = block.text?.replace('"limitProfile":"mcp-local-stdio"', `"limitProfile":"${PROFILE}"`);
    }
    check(JSON.stringify(renamed) === JSON.stringify(b), `${id}: the HTTP result is stdio's but for the profile`);
    compared += 1;
  }
  await Promise.all([local.close(), remote.client.close()]);
}

finish({
  sdk: "@modelcontextprotocol/sdk",
  transport: "streamable-http",
  protocolVersion: negotiated,
  tools: names.length,
  resources: resources.length,
  concurrentClients: pair.length,
  token: token !== undefined,
  refusals,
  posts,
  nonPost,
  comparedWithStdio: compared,
  sizes,
});
