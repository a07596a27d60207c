// The performance cases of eval/performance.json (MCP-91;
// docs/mcp/verification.md#response-sizes-and-latency) measured the way a JavaScript MCP
// client sees them (MCP-93): whole response `JSON.stringify(result)`, the text block,
// and per-call latency over stdio with the official TypeScript SDK client. Latency is
// reported only; the byte budget is gated by server/tests/performance.rs.
//
// usage: node perf.mjs <path of ajisai-mcp-server> [AJISAI_NUMERICS value]

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";

const [server, numerics] = process.argv.slice(2);
if (!server) {
  console.error("usage: node perf.mjs <path of ajisai-mcp-server> [pure|gmp]");
  process.exit(2);
}
const perf = JSON.parse(readFileSync(new URL("../../eval/performance.json", import.meta.url), "utf8"));
const env = { PATH: process.env.PATH ?? "" };
if (numerics) env.AJISAI_NUMERICS = numerics;

const client = new Client({ name: "ajisai-perf", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: server, args: [], env, stderr: "ignore" }));
await client.listTools(); // as a client does; enables the SDK's output validation

const rank = (sorted, p) => sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1];
const rows = [];
const ids = ["1 2 ADD", ...perf.caseIds];
for (const id of ids) {
  const c = id === "1 2 ADD" ? { tool: "compute", arguments: { source: "1 2 ADD" } } : perf.cases[id];
  const params = { name: c.tool, arguments: c.arguments };
  for (let i = 0; i < perf.warmupRuns; i++) await client.callTool(params);
  const times = [];
  let result;
  for (let i = 0; i < perf.measuredRuns; i++) {
    const t0 = process.hrtime.bigint();
    result = await client.callTool(params);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  rows.push({
    id,
    responseBytes: Buffer.byteLength(JSON.stringify(result), "utf8"),
    textBytes: Buffer.byteLength(result.content.map((b) => b.text).join(""), "utf8"),
    p50: rank(times, 0.5),
    p95: rank(times, 0.95),
  });
}
const backend = (await client.callTool({ name: "compute", arguments: { source: "1" } })).structuredContent.mcp.backend;
await client.close();

const seven = rows.filter((r) => r.id !== "1 2 ADD").map((r) => r.responseBytes).sort((a, b) => a - b);
console.log(`backend ${backend.kind} (${backend.library}); ${perf.measuredRuns} runs after ${perf.warmupRuns} warm-up runs`);
console.log(`${"case".padEnd(20)} ${"response".padStart(9)} ${"text".padStart(6)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)}`);
for (const r of rows) {
  console.log(`${r.id.padEnd(20)} ${String(r.responseBytes).padStart(9)} ${String(r.textBytes).padStart(6)} ${r.p50.toFixed(3).padStart(8)} ${r.p95.toFixed(3).padStart(8)}`);
}
console.log(`median response of the seven: ${seven[3]} bytes (budget ${perf.medianResponseBytesBudget})`);
