#!/usr/bin/env node
// `ajisai-mcp-server`: the MCP server (stdio by default; --http, --doctor, --version,
// --help). Runs this platform's binary (lib/launcher.js).
"use strict";
require("../lib/launcher.js").run("ajisai-mcp-server");
