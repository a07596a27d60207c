#!/usr/bin/env node
// `ajisai`: the command-line tool (run, check, repl, doc, …). Runs this platform's binary
// (lib/launcher.js).
"use strict";
require("../lib/launcher.js").run("ajisai");
