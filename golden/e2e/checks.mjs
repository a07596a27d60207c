// The checks the end-to-end scripts share (MCP-87; docs/mcp/verification.md): one client
// of the official TypeScript SDK v1 (`@modelcontextprotocol/sdk`), connected over any
// transport, lists tools and resources, calls every tool, reads every resource and a
// template URI, and provokes host errors. e2e.mjs runs them over stdio, e2e-http.mjs
// over Streamable HTTP; e2e-modern.mjs uses `check` and `envelopeOf` with the v2 client.
//
// A script collects failures with `check` and ends with `finish(summary)`: one JSON line
// on stdout, or every failure on stderr and exit 1.

import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

export const failures = [];
export function check(ok, what) {
  if (!ok) failures.push(what);
  return ok;
}

/** Print the summary line, or the failures (exit 1). */
export function finish(summary) {
  if (failures.length > 0) {
    for (const f of failures) console.error(`FAIL ${f}`);
    process.exit(1);
  }
  console.log(JSON.stringify(summary));
}

export const TOOL_NAMES = ["compute", "check", "infer_contracts", "word_contract"];

export const SPEC_RESOURCES = [
  ["ajisai://guide/quickstart", "text/markdown"],
  ["ajisai://vocabulary", "application/json"],
  ["ajisai://contracts", "application/json"],
  ["ajisai://schema/result", "application/json"],
  ["ajisai://limits", "application/json"],
  ["ajisai://phrasebook", "text/plain"],
];

// Every result: one text block that is the compact JSON of structuredContent
// (MCP-25/26; docs/mcp/envelope.md); isError exactly on host errors. The SDK itself validates structuredContent against the
// tool's outputSchema (with Ajv) on every call. With `profile`, the envelope's
// `mcp.limitProfile` must be that profile too.
export function envelopeOf(result, label, profile) {
  const env = result.structuredContent;
  check(env && typeof env === "object", `${label}: structuredContent`);
  check(result.content?.length === 1 && result.content[0].type === "text", `${label}: one text block`);
  const text = result.content?.[0]?.text ?? "";
  check(JSON.stringify(env) === text, `${label}: the text block is the compact serialization of structuredContent`);
  check(isDeepStrictEqual(JSON.parse(text), env), `${label}: the text mirror parses to structuredContent`);
  check((result.isError === true) === (env?.status === "hostError"), `${label}: isError iff hostError`);
  if (profile !== undefined) {
    check(env?.mcp?.limitProfile === profile, `${label}: mcp.limitProfile ${profile}, got ${env?.mcp?.limitProfile}`);
  }
  return env;
}

/** `call(name, args, label?)` → `{ result, env }` on `client`, each result checked. */
export function caller(client, profile) {
  return async (name, args, label = `${name} ${JSON.stringify(args)}`) => {
    const result = await client.callTool({ name, arguments: args });
    return { result, env: envelopeOf(result, label, profile) };
  };
}

/**
 * The whole MCP-87 sequence on a connected v1 client whose server serves limit profile
 * `profile`; with `everyEnvelope`, every tool result is held to that profile as well.
 * Returns the listed tools and resources and the checked `call`.
 */
export async function checkServer(client, { profile, everyEnvelope = false }) {
  const call = caller(client, everyEnvelope ? profile : undefined);

  const info = client.getServerVersion();
  check(info?.name === "ajisai", `serverInfo.name is ajisai: ${JSON.stringify(info)}`);
  const caps = client.getServerCapabilities();
  check(caps?.tools && caps?.resources && !caps?.prompts, `capabilities: ${JSON.stringify(caps)}`);

  // ---- tools -----------------------------------------------------------------------
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  check(isDeepStrictEqual(names, TOOL_NAMES), `tools in order: ${names}`);
  for (const t of tools) {
    check(t.inputSchema?.additionalProperties === false, `${t.name}: additionalProperties false`);
    check(t.outputSchema?.$id === "ajisai://schema/result", `${t.name}: outputSchema is the result schema`);
    check(t.annotations?.readOnlyHint === true && t.annotations?.idempotentHint === true,
      `${t.name}: read-only, idempotent annotations`);
  }

  {
    const { env } = await call("compute", { source: "2 3 DIV 1 3 DIV ADD" });
    check(env.status === "ok" && env.outcome === "value", "compute: ok value");
    check(isDeepStrictEqual(env.stackDisplay, ["1/1"]), `compute: 1/1, got ${env.stackDisplay}`);
    check(env.mcp?.limitProfile === profile, "compute: mcp.limitProfile");
  }
  {
    const { env } = await call("compute", { source: "2 SQRT" });
    check(isDeepStrictEqual(env.stack[0].semantics.exactTerms, [{ numerator: "1", denominator: "1", radicand: "2" }]),
      "compute: 2 SQRT exact terms");
    check(env.stackDisplay[0] === "sqrt(2)", "compute: sqrt(2)");
  }
  {
    const { env } = await call("compute", { source: "1 0 DIV" });
    check(env.outcome === "nil:divisionByZero", `compute: NIL reason, got ${env.outcome}`);
  }
  {
    const { env } = await call("compute", { source: "[ 1 2 3 ] LENGHT" });
    check(env.status === "error" && env.error.category === "unknownWord" && env.error.word === "LENGHT",
      "compute: unknownWord");
    check(env.message === "Unknown word: LENGHT; closest: LENGTH", `compute: message ${env.message}`);
  }
  {
    const { env } = await call("compute", { source: "[ 1 2 3 4 ] MEAN", words: ["MEAN"] });
    check(env.stackDisplay?.[0] === "5/2" && env.prelude?.[0]?.name === "MEAN" &&
      /^sha256:[0-9a-f]{64}$/.test(env.prelude?.[0]?.digest ?? ""), `compute with words: ${JSON.stringify(env.prelude)}`);
  }
  {
    const { env } = await call("check", { source: "{ FOO } 'BAR' DEF 1" });
    check(env.status === "error" && env.error.category === "unknownWord", "check: stricter than compute");
  }
  {
    const { env } = await call("infer_contracts", { source: "{ [ 1 ] + } 'INC' DEF" });
    check(env.contracts?.[0]?.suggested === "#:contract INC inputs=1 outputs=1 field=closed",
      `infer_contracts: ${JSON.stringify(env.contracts)}`);
  }
  {
    const { env } = await call("word_contract", { word: "map" });
    check(env.status === "ok" && env.matches?.[0]?.name === "MAP", "word_contract: MAP");
  }

  // Host errors: tool results with isError, never JSON-RPC errors (MCP-19, MCP-45; docs/mcp/host-errors.md).
  {
    const { result, env } = await call("evaluate", { source: "1" });
    check(result.isError === true && env.error?.code === "unknownTool", `unknown tool: ${JSON.stringify(env)}`);
  }
  {
    const { result, env } = await call("compute", { source: "1", extra: true });
    check(result.isError === true && env.error?.code === "invalidRequest" &&
      env.error.message === "Unknown argument `extra` for compute; accepted: source, words.",
      `undeclared argument: ${JSON.stringify(env)}`);
  }
  {
    const { result, env } = await call("compute", { source: "\u3042".repeat(21846) }, "compute 65,538 bytes");
    check(result.isError === true && env.error?.code === "sourceTooLarge" && env.error.limit === "sourceBytes",
      `source too large: ${JSON.stringify(env.error)}`);
  }

  // ---- resources ---------------------------------------------------------------------
  const { resources } = await client.listResources();
  const listed = resources.map((r) => [r.uri, r.mimeType]);
  check(isDeepStrictEqual(listed, SPEC_RESOURCES), `resources in order: ${JSON.stringify(listed)}`);
  const read = {};
  for (const r of resources) {
    const { contents } = await client.readResource({ uri: r.uri });
    check(contents.length === 1 && contents[0].uri === r.uri && contents[0].mimeType === r.mimeType,
      `${r.uri}: one contents item`);
    const text = contents[0].text ?? "";
    check(text.length > 0, `${r.uri}: text`);
    if (r.mimeType === "application/json") {
      const doc = JSON.parse(text);
      // Compact: the served bytes are the embedded asset's, which may end in one newline.
      check(JSON.stringify(doc) === text.replace(/\n$/, ""), `${r.uri}: compact JSON`);
      read[r.uri] = doc;
    }
  }
  check(isDeepStrictEqual(read["ajisai://schema/result"], tools[0].outputSchema),
    "ajisai://schema/result equals the outputSchema");
  check(read["ajisai://limits"]?.profile === profile &&
    Object.keys(read["ajisai://limits"]?.limits ?? {}).length === 13, "ajisai://limits: thirteen limits");

  const { resourceTemplates } = await client.listResourceTemplates();
  check(isDeepStrictEqual(resourceTemplates.map((t) => t.uriTemplate), ["ajisai://words/{name}"]),
    "the Word template");
  for (const [uri, word] of [["ajisai://words/add", "ADD"], ["ajisai://words/%2F", "DIV"]]) {
    const { contents } = await client.readResource({ uri });
    const doc = JSON.parse(contents[0].text);
    check(doc.matches?.[0]?.name === word, `${uri} reads ${word}`);
    const { env } = await call("word_contract", { word: decodeURIComponent(uri.slice(15)) });
    check(JSON.stringify(env) === contents[0].text, `${uri}: the same text as word_contract`);
  }
  try {
    await client.readResource({ uri: "ajisai://nothing-here" });
    check(false, "an unknown resource is a JSON-RPC error");
  } catch (e) {
    check(e instanceof McpError && e.code === -32002, `unknown resource: code ${e.code}`);
  }

  return { tools, names, resources, read, call };
}

/** `[id, tool, arguments]` of `1 2 ADD` and the seven performance cases (MCP-91). */
export function performanceCases() {
  const perf = JSON.parse(readFileSync(new URL("../../eval/performance.json", import.meta.url), "utf8"));
  return ["1 2 ADD", ...perf.caseIds].map((id) => {
    const c = id === "1 2 ADD" ? { tool: "compute", arguments: { source: "1 2 ADD" } } : perf.cases[id];
    return [id, c.tool, c.arguments];
  });
}

/** The response and text-block sizes of the performance cases as MCP-93 defines them. */
export async function performanceSizes(call) {
  const sizes = {};
  for (const [id, tool, args] of performanceCases()) {
    const { result } = await call(tool, args, id);
    sizes[id] = {
      responseBytes: Buffer.byteLength(JSON.stringify(result), "utf8"),
      textBytes: Buffer.byteLength(result.content.map((b) => b.text).join(""), "utf8"),
    };
  }
  return sizes;
}
