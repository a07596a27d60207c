// The launcher of the npm package `ajisai-mcp-server` (the esbuild/biome pattern): npm
// installs, of the platform packages listed in `optionalDependencies`, only the one whose
// `os`, `cpu` and `libc` match this machine; the launcher finds that package's binary and
// runs it with stdio inherited, forwarding signals and the exit code. No install script,
// no download: what runs is exactly what was packed.
//
// CommonJS and no dependencies, so that it runs on every Node the package supports.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");
// Written by packaging/assemble.mjs from packaging/platforms.json (the one source).
const { platforms } = require("./platforms.json");

/** The C library of this Linux (glibc, or musl), or null elsewhere. */
function libc() {
  if (process.platform !== "linux") {
    return null;
  }
  const report = process.report && typeof process.report.getReport === "function"
    ? process.report.getReport()
    : null;
  return report && report.header && report.header.glibcVersionRuntime ? "glibc" : "musl";
}

/** This machine as the platform table names it: `linux-x64-glibc`, `darwin-arm64`, … */
function platformKey() {
  const c = libc();
  return `${process.platform}-${process.arch}${c ? `-${c}` : ""}`;
}

/** Print one line on stderr and exit 1. */
function fail(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** The path of the executable `name` for this machine, or exit 1 saying why there is none. */
function binaryPath(name) {
  const key = platformKey();
  const entry = platforms.find((p) => p.key === key);
  if (!entry) {
    fail(
      `ajisai-mcp-server: no binary for ${key}; binaries exist for ` +
        `${platforms.map((p) => p.key).join(", ")} (anywhere else, build from source: ` +
        "cargo install --locked --git https://github.com/masamoto1982/Ajisai ajisai-server)",
    );
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${entry.npm}/package.json`));
  } catch {
    fail(
      `ajisai-mcp-server: the package ${entry.npm} (the binary for ${key}) is not ` +
        "installed; install again without --omit=optional or --no-optional",
    );
  }
  return path.join(dir, "bin", `${name}${entry.exe}`);
}

/** Run the executable `name` with this process's arguments; exits as it exits. */
function run(name) {
  const bin = binaryPath(name);
  const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
  const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
  const forward = (signal) => {
    child.kill(signal);
  };
  for (const signal of forwarded) {
    process.on(signal, forward);
  }
  child.on("error", (err) => fail(`ajisai-mcp-server: cannot start ${bin}: ${err.message}`));
  child.on("exit", (code, signal) => {
    if (signal) {
      // Die of the same signal, as the binary did.
      for (const s of forwarded) {
        process.removeListener(s, forward);
      }
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

module.exports = { run, platformKey, binaryPath };
