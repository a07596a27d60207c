// Assembles Ajisai's packages from the release binaries of one platform (called by
// scripts/package, which builds those binaries and the wheel first):
//
//   node packaging/assemble.mjs pypi-project DIR
//       writes the maturin project the wheel is built from (pyproject.toml and the PyPI
//       README with its `mcp-name:` line) into DIR
//   node packaging/assemble.mjs packages --platform KEY --binaries DIR --out DIR
//       writes into --out: the npm platform package and the npm main package (npm pack),
//       the MCPB desktop bundle (mcpb validate, mcpb pack), a .tar.gz of the binaries,
//       server.json for the MCP Registry (validated against the registry's own schema)
//       and SHA256SUMS over everything there
//   node packaging/assemble.mjs launcher DIR
//       the npm main package again, its optional dependencies exactly the platform packages
//       gathered into DIR (the release workflow, before publishing)
//   node packaging/assemble.mjs index DIR
//       server.json and SHA256SUMS again, over the artifacts of every platform gathered in
//       DIR (the release workflow's last step)
//
// Every version, name and platform comes from one place: the workspace's Cargo.toml
// (version, license, and `[workspace.metadata.registry]`'s owner and repository, from which
// the repository URL and the MCP Registry name io.github.<owner>/ajisai derive; read through
// `cargo metadata`) and packaging/platforms.json. Nothing is downloaded; npm pack and
// mcpb pack run on files this script writes.

import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");

/** Stop with one line on stderr. */
function die(message) {
  console.error(`assemble: ${message}`);
  process.exit(1);
}

/** What every package says about itself, from the workspace manifest. */
function workspace() {
  const meta = JSON.parse(
    execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1", "--locked"], {
      cwd: repo,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    }),
  );
  const server = meta.packages.find((p) => p.name === "ajisai-server");
  if (!server) die("no ajisai-server package in the workspace");
  const owner = meta.metadata?.registry?.owner;
  const repositoryName = meta.metadata?.registry?.repository;
  if (!owner || !repositoryName) die("Cargo.toml has no [workspace.metadata.registry] owner and repository");
  // The one publisher: the registry namespace GitHub OIDC grants is the repository owner's.
  const mcpName = `io.github.${owner}/ajisai`;
  const repository = `https://github.com/${owner}/${repositoryName}`;
  if (server.repository.replace(/\/$/, "") !== repository) {
    die(`Cargo.toml's repository is ${server.repository}, not ${repository} (its [workspace.metadata.registry])`);
  }
  return {
    version: server.version,
    license: server.license,
    repository,
    mcpName,
    // The binaries link GMP statically (LGPL-3.0-or-later; see NOTICE.md).
    binaryLicense: `${server.license} AND LGPL-3.0-or-later`,
    description:
      "Exact arithmetic for AI agents: a bounded, deterministic stack-language calculator over MCP",
  };
}

const platformTable = JSON.parse(fs.readFileSync(path.join(here, "platforms.json"), "utf8"));

function platform(key) {
  const p = platformTable.platforms.find((x) => x.key === key);
  if (!p) die(`unknown platform ${key}; known: ${platformTable.platforms.map((x) => x.key)}`);
  return p;
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function copy(from, to, mode) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  if (mode) fs.chmodSync(to, mode);
}

function sha256(file) {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** Run a command, inheriting stdout/stderr; stop if it fails. */
function run(command, args, options = {}) {
  try {
    execFileSync(command, args, { stdio: "inherit", ...options });
  } catch (e) {
    die(`${command} ${args.join(" ")} failed (${e.status ?? e.message})`);
  }
}

/** `npm pack DIR` into OUT; the tarball's file name. */
function npmPack(dir, out) {
  const printed = execFileSync(
    "npm",
    ["pack", dir, "--pack-destination", out, "--json", "--loglevel=error"],
    { encoding: "utf8" },
  );
  return JSON.parse(printed)[0].filename;
}

/** The shared user-facing text of the packages' READMEs. */
function readme(ws, intro, install) {
  return `# Ajisai MCP server

${intro}

Ajisai is a small postfix stack language with **exact arithmetic**: \`2 3 DIV 1 3 DIV ADD\`
answers \`1/1\`, never \`0.999…\`; \`2 SQRT\` is the exact \`sqrt(2)\`. Its MCP server offers the
language to AI agents as a bounded, deterministic calculator: every call answers a value, a
NIL with its reason, or an error with a category and a hint, within declared limits, with
provenance.

${install}

\`ajisai-mcp-server --doctor\` exits 0 when the installed copy can compute;
\`ajisai-mcp-server --help\` lists the options (\`--http ADDR:PORT\` serves Streamable HTTP).

- Source, guide and issues: ${ws.repository}
- Licence: ${ws.license} (Ajisai); the binaries link GMP statically (LGPL-3.0-or-later), see
  NOTICE.md.
`;
}

const clientEntry = (command, args) =>
  `\`\`\`json
{
  "mcpServers": {
    "ajisai": {
      "command": "${command}",
      "args": [${args.map((a) => `"${a}"`).join(", ")}]
    }
  }
}
\`\`\``;

// ---------------------------------------------------------------------------
// The maturin project of the wheel.

function pypiProject(dir) {
  const ws = workspace();
  fs.mkdirSync(dir, { recursive: true });
  const manifest = path.join(repo, "server", "Cargo.toml");
  fs.writeFileSync(
    path.join(dir, "pyproject.toml"),
    `# Generated by packaging/assemble.mjs (scripts/package): the wheel of ajisai-mcp-server,
# its two executables built by maturin from ${path.relative(repo, manifest)}.
[build-system]
requires = ["maturin>=1.16,<2"]
build-backend = "maturin"

[project]
name = "ajisai-mcp-server"
description = "${ws.description}"
readme = "README.md"
requires-python = ">=3.8"
license = "${ws.binaryLicense}"
keywords = ["mcp", "model-context-protocol", "exact-arithmetic", "calculator", "agents"]
classifiers = [
  "Environment :: Console",
  "Operating System :: POSIX :: Linux",
  "Programming Language :: Rust",
  "Topic :: Scientific/Engineering :: Mathematics",
]
dynamic = ["version"]

[project.urls]
Repository = "${ws.repository}"

[tool.maturin]
bindings = "bin"
manifest-path = ${JSON.stringify(manifest)}
strip = true
`,
  );
  fs.writeFileSync(
    path.join(dir, "README.md"),
    `${readme(
      ws,
      "Run it with `uvx ajisai-mcp-server`: this wheel carries the native binaries, no build step.",
      `In an MCP client's configuration (Claude Desktop, Claude Code, Cursor):

${clientEntry("uvx", ["ajisai-mcp-server"])}

The wheel holds the executables \`ajisai-mcp-server\` and \`ajisai\` (the command-line tool);
\`pip install ajisai-mcp-server\` puts both on the virtualenv's PATH.`,
    )}
<!-- The MCP Registry verifies this package's ownership by the next line. -->
mcp-name: ${ws.mcpName}
`,
  );
  copy(path.join(here, "NOTICE.md"), path.join(dir, "NOTICE.md"));
}

// ---------------------------------------------------------------------------
// npm, MCPB, the binaries' archive, server.json, SHA256SUMS.

/** The platform package: the binaries of one platform, installed only where they run. */
function npmPlatform(ws, p, binaries, build) {
  const dir = path.join(build, "npm", p.npm);
  fs.rmSync(dir, { recursive: true, force: true });
  for (const name of ["ajisai-mcp-server", "ajisai"]) {
    copy(path.join(binaries, name + p.exe), path.join(dir, "bin", name + p.exe), 0o755);
  }
  const pkg = {
    name: p.npm,
    version: ws.version,
    description: `The ${p.key} binaries of ajisai-mcp-server (installed by it; not meant to be used alone)`,
    license: ws.binaryLicense,
    repository: { type: "git", url: `git+${ws.repository}.git` },
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    files: ["bin/", "NOTICE.md"],
    preferUnplugged: true,
  };
  writeJson(path.join(dir, "package.json"), pkg);
  fs.writeFileSync(
    path.join(dir, "README.md"),
    `# ${p.npm}\n\nThe ${p.key} binaries of [ajisai-mcp-server](https://www.npmjs.com/package/ajisai-mcp-server), which installs this package on matching machines. Run \`npx -y ajisai-mcp-server\`.\n`,
  );
  copy(path.join(here, "NOTICE.md"), path.join(dir, "NOTICE.md"));
  return dir;
}

/**
 * The main package: the launcher, and as its optional dependencies exactly the platform
 * packages of this release (`platforms`): a name the launcher lists but nobody published
 * could be claimed by someone else, and npm would install theirs.
 */
function npmMain(ws, build, platforms) {
  const dir = path.join(build, "npm", "ajisai-mcp-server");
  fs.rmSync(dir, { recursive: true, force: true });
  for (const f of ["bin/ajisai-mcp-server.js", "bin/ajisai.js", "lib/launcher.js"]) {
    copy(path.join(here, "npm", f), path.join(dir, f), f.startsWith("bin/") ? 0o755 : 0o644);
  }
  writeJson(path.join(dir, "lib", "platforms.json"), {
    platforms: platforms.map((p) => ({ key: p.key, npm: p.npm, exe: p.exe })),
  });
  const pkg = {
    name: "ajisai-mcp-server",
    version: ws.version,
    description: ws.description,
    mcpName: ws.mcpName,
    license: ws.license,
    repository: { type: "git", url: `git+${ws.repository}.git` },
    homepage: ws.repository,
    keywords: ["mcp", "model-context-protocol", "exact-arithmetic", "calculator", "agents"],
    bin: { "ajisai-mcp-server": "bin/ajisai-mcp-server.js", ajisai: "bin/ajisai.js" },
    files: ["bin/", "lib/", "NOTICE.md"],
    engines: { node: ">=18" },
    optionalDependencies: Object.fromEntries(platforms.map((p) => [p.npm, ws.version])),
  };
  writeJson(path.join(dir, "package.json"), pkg);
  fs.writeFileSync(
    path.join(dir, "README.md"),
    readme(
      ws,
      "Run it with `npx -y ajisai-mcp-server`: Node 18 or later, nothing else — no build step, no cargo; npm installs the native binary of your platform.",
      `In an MCP client's configuration (Claude Desktop's \`claude_desktop_config.json\`, Claude
Code's \`.mcp.json\`, Cursor's \`.cursor/mcp.json\`):

${clientEntry("npx", ["-y", "ajisai-mcp-server"])}

Binaries exist for ${platforms.map((p) => p.key).join(", ")}. The package
also installs \`ajisai\`, the command-line tool (\`npx -p ajisai-mcp-server ajisai run -\`).`,
    ),
  );
  copy(path.join(here, "NOTICE.md"), path.join(dir, "NOTICE.md"));
  return dir;
}

/** The server's tools as `tools/list` describes them, from the built binary itself. */
function toolsOf(server) {
  return new Promise((resolve, reject) => {
    const child = spawn(server, [], { stdio: ["pipe", "pipe", "ignore"] });
    let buffer = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error("no tools/list answer within 30 s"));
    }, 30_000);
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (;;) {
        const nl = buffer.indexOf("\n");
        if (nl < 0) break;
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.id === 1) {
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
        } else if (message.id === 2) {
          clearTimeout(timer);
          child.stdin.end();
          resolve(message.result.tools.map((t) => ({ name: t.name, description: t.description })));
        }
      }
    });
    child.on("error", reject);
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "ajisai-assemble", version: "1" },
        },
      })}\n`,
    );
  });
}

/** The MCPB desktop bundle of one platform; its file name. */
async function mcpb(ws, p, binaries, build, out) {
  const dir = path.join(build, "mcpb", p.key);
  fs.rmSync(dir, { recursive: true, force: true });
  const server = path.join(dir, "server", `ajisai-mcp-server${p.exe}`);
  copy(path.join(binaries, `ajisai-mcp-server${p.exe}`), server, 0o755);
  copy(path.join(here, "NOTICE.md"), path.join(dir, "NOTICE.md"));
  const tools = await toolsOf(server);
  const manifest = {
    manifest_version: "0.3",
    name: "ajisai",
    display_name: "Ajisai",
    version: ws.version,
    description: ws.description,
    long_description:
      "Exact answers for arithmetic, radicals, vectors and statistics: `2 3 DIV 1 3 DIV ADD` is `1/1`, never `0.999…`. Every call answers a value, a NIL with its reason, or an error with a category and a hint, within declared limits.",
    author: { name: "The Ajisai developers", url: ws.repository },
    repository: { type: "git", url: ws.repository },
    homepage: ws.repository,
    documentation: `${ws.repository}/tree/main/docs`,
    support: `${ws.repository}/issues`,
    license: ws.binaryLicense,
    keywords: ["math", "exact-arithmetic", "calculator", "fractions", "radicals"],
    server: {
      type: "binary",
      entry_point: `server/ajisai-mcp-server${p.exe}`,
      mcp_config: {
        command: `\${__dirname}/server/ajisai-mcp-server${p.exe}`,
        args: [],
        env: {},
      },
    },
    tools,
    compatibility: { platforms: [p.mcpb] },
  };
  writeJson(path.join(dir, "manifest.json"), manifest);
  const cli = path.join(here, "node_modules", ".bin", "mcpb");
  run(cli, ["validate", path.join(dir, "manifest.json")]);
  const name = `ajisai-mcp-server-${ws.version}-${p.key}.mcpb`;
  run(cli, ["pack", dir, path.join(out, name)]);
  return name;
}

/** A plain archive of the binaries, for a release page. */
function archive(ws, p, binaries, build, out) {
  const base = `ajisai-${ws.version}-${p.key}`;
  const dir = path.join(build, "archive", base);
  fs.rmSync(dir, { recursive: true, force: true });
  for (const name of ["ajisai-mcp-server", "ajisai"]) {
    copy(path.join(binaries, name + p.exe), path.join(dir, name + p.exe), 0o755);
  }
  copy(path.join(here, "NOTICE.md"), path.join(dir, "NOTICE.md"));
  const name = `${base}.tar.gz`;
  run("tar", ["-czf", path.join(out, name), "-C", path.dirname(dir), "--owner=0", "--group=0", base]);
  return name;
}

/** server.json, the MCP Registry entry, validated against the registry's own schema. */
async function serverJson(ws, out) {
  const bundles = fs.readdirSync(out).filter((f) => f.endsWith(".mcpb")).sort();
  const release = `${ws.repository}/releases/download/v${ws.version}`;
  const entry = {
    $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    name: ws.mcpName,
    title: "Ajisai",
    description: "Exact-arithmetic calculator for agents: values, reasoned NILs, errors that teach",
    version: ws.version,
    repository: { url: ws.repository, source: "github" },
    packages: [
      {
        registryType: "npm",
        identifier: "ajisai-mcp-server",
        version: ws.version,
        runtimeHint: "npx",
        transport: { type: "stdio" },
      },
      {
        registryType: "pypi",
        identifier: "ajisai-mcp-server",
        version: ws.version,
        runtimeHint: "uvx",
        transport: { type: "stdio" },
      },
      ...bundles.map((file) => ({
        registryType: "mcpb",
        identifier: `${release}/${file}`,
        version: ws.version,
        fileSha256: sha256(path.join(out, file)),
        transport: { type: "stdio" },
      })),
    ],
    remotes: [
      {
        type: "streamable-http",
        url: "https://{host}/mcp",
        variables: {
          host: {
            description:
              "Host name (and port) of your Ajisai deployment: ajisai-mcp-server --http behind TLS",
            isRequired: true,
            placeholder: "ajisai.example.com",
          },
        },
        headers: [
          {
            name: "Authorization",
            description: "The deployment's bearer token (AJISAI_HTTP_TOKEN), when it sets one",
            value: "Bearer {token}",
            isSecret: true,
            variables: { token: { description: "The bearer token", isSecret: true } },
          },
        ],
      },
    ],
  };
  const { default: Ajv } = await import(path.join(here, "node_modules", "ajv", "dist", "ajv.js"));
  const { default: addFormats } = await import(
    path.join(here, "node_modules", "ajv-formats", "dist", "index.js")
  );
  const schema = JSON.parse(
    fs.readFileSync(path.join(here, "registry", "server.schema.json"), "utf8"),
  );
  // The registry's schema uses annotation keywords (`example`) that strict mode refuses.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  if (!validate(entry)) {
    die(`server.json does not follow the registry's schema: ${ajv.errorsText(validate.errors)}`);
  }
  writeJson(path.join(out, "server.json"), entry);
}

function checksums(out) {
  const files = fs
    .readdirSync(out)
    .filter((f) => f !== "SHA256SUMS" && fs.statSync(path.join(out, f)).isFile())
    .sort();
  fs.writeFileSync(
    path.join(out, "SHA256SUMS"),
    files.map((f) => `${sha256(path.join(out, f))}  ${f}\n`).join(""),
  );
}

async function packages(args) {
  const option = (name) => {
    const i = args.indexOf(name);
    if (i < 0 || !args[i + 1]) die(`${name} is required`);
    return args[i + 1];
  };
  const p = platform(option("--platform"));
  const binaries = path.resolve(option("--binaries"));
  const out = path.resolve(option("--out"));
  const build = path.join(out, "..", "package-build");
  const ws = workspace();
  fs.mkdirSync(out, { recursive: true });
  const made = [];
  made.push(npmPack(npmPlatform(ws, p, binaries, build), out));
  // This machine's platform only: the release workflow writes the launcher again over
  // every platform it gathered (`launcher DIR`).
  made.push(npmPack(npmMain(ws, build, [p]), out));
  made.push(await mcpb(ws, p, binaries, build, out));
  made.push(archive(ws, p, binaries, build, out));
  await serverJson(ws, out);
  checksums(out);
  for (const f of [...made, "server.json", "SHA256SUMS"]) console.log(`assemble: ${f}`);
}

const [command, ...rest] = process.argv.slice(2);
if (command === "pypi-project" && rest.length === 1) {
  pypiProject(path.resolve(rest[0]));
} else if (command === "packages") {
  await packages(rest);
} else if (command === "launcher" && rest.length === 1) {
  // The launcher of a release, over the platform packages gathered into DIR (and no
  // other): written and packed into DIR in place of any launcher there.
  const out = path.resolve(rest[0]);
  const ws = workspace();
  const gathered = platformTable.platforms.filter((p) =>
    fs.existsSync(path.join(out, `${p.npm}-${ws.version}.tgz`)),
  );
  if (gathered.length === 0) die(`no platform package of version ${ws.version} in ${out}`);
  for (const f of fs.readdirSync(out)) {
    if (f === `ajisai-mcp-server-${ws.version}.tgz`) fs.rmSync(path.join(out, f));
  }
  const made = npmPack(npmMain(ws, path.join(repo, "target", "launcher-build"), gathered), out);
  console.log(`assemble: ${made} (${gathered.map((p) => p.key).join(", ")})`);
} else if (command === "index" && rest.length === 1) {
  // The release's last step: server.json over every platform's bundle, and SHA256SUMS over
  // every artifact gathered into DIR.
  const out = path.resolve(rest[0]);
  await serverJson(workspace(), out);
  checksums(out);
} else {
  die(
    "usage: assemble.mjs pypi-project DIR | packages --platform KEY --binaries DIR --out DIR | launcher DIR | index DIR",
  );
}
