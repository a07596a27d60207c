#!/usr/bin/env python3
"""A small command-line MCP client for answering the evaluation corpus (eval/cases.json)
the way an agent would: with nothing but the Ajisai MCP server's tools and resources,
recording every tool call and every final answer in a trace.

It runs on the official MCP Python SDK (`mcp`, see golden/python/requirements.txt) and
launches the server over stdio for each invocation: target/debug/ajisai-mcp-server, or the
path in the environment variable AJISAI_SERVER.

usage:
  agent_client.py tools                       print the tool list (name, description, input schema)
  agent_client.py resources                   list the resources (URI, name, MIME type, description)
  agent_client.py read URI                    print a resource's text
  agent_client.py session --trace FILE --agent NAME
                                              create FILE with its session line
  agent_client.py call --trace FILE --case ID --lang en|ja TOOL 'JSON-ARGUMENTS'
                                              call TOOL, print its structuredContent, record it
  agent_client.py answer --trace FILE --case ID --lang en|ja 'TEXT'
                                              record the final answer given to the user

Trace format (JSON Lines: one compact JSON object a line, UTF-8, ensure_ascii=False; lines
are only ever appended):
  {"kind":"session","corpus":"eval/cases.json","date":"YYYY-MM-DD","serverVersion":…,
   "assetDigest":…,"backend":…,"client":"mcp-python-sdk <version>","agent":NAME}
      first line; serverVersion, assetDigest and backend are read from the `mcp` block of a
      real `compute` call of `1 1 +` (not recorded as a case call); the date is UTC.
  {"kind":"call","case":ID,"lang":LANG,"tool":TOOL,"arguments":{…},"result":{…},"isError":bool}
      one tool call; `result` is the result's structuredContent as the server sent it (a
      JSON-RPC error instead of a result is recorded as {"protocolError":{"code","message"}}).
  {"kind":"answer","case":ID,"lang":LANG,"text":TEXT}
      the final answer of one attempt.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

DEFAULT_SERVER = Path(__file__).resolve().parent.parent / "target" / "debug" / "ajisai-mcp-server"
CLIENT_INFO = types.Implementation(name="ajisai-eval-agent-client", version="1.0.0")
READ_TIMEOUT = 60  # seconds the SDK waits for one answer


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def sdk_version() -> str:
    return importlib.metadata.version("mcp")


def client() -> Client:
    server = os.environ.get("AJISAI_SERVER") or str(DEFAULT_SERVER)
    transport = stdio_client(StdioServerParameters(command=server, args=[]), errlog=sys.stderr)
    return Client(transport, client_info=CLIENT_INFO, read_timeout_seconds=READ_TIMEOUT)


def append(trace: str, record: dict) -> None:
    with open(trace, "a", encoding="utf-8") as f:
        f.write(compact(record) + "\n")


def dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def cmd_tools(args: argparse.Namespace) -> int:
    async with client() as c:
        for t in (await c.list_tools()).tools:
            print(f"## {t.name}\n\n{t.description}\n\ninput schema:\n{pretty(t.input_schema)}\n")
    return 0


async def cmd_resources(args: argparse.Namespace) -> int:
    async with client() as c:
        for r in (await c.list_resources()).resources:
            print(pretty(dump(r)))
        templates = (await c.list_resource_templates()).resource_templates
        for t in templates:
            print(pretty(dump(t)))
    return 0


async def cmd_read(args: argparse.Namespace) -> int:
    async with client() as c:
        try:
            contents = (await c.read_resource(args.uri)).contents
        except MCPError as e:
            print(f"error {e.error.code}: {e.error.message}", file=sys.stderr)
            return 1
    for item in contents:
        print(getattr(item, "text", None) or f"[binary {getattr(item, 'mime_type', '')}]")
    return 0


async def call(tool: str, arguments: dict) -> tuple[Any, bool]:
    async with client() as c:
        try:
            result = await c.call_tool(tool, arguments)
        except MCPError as e:  # a JSON-RPC error instead of a tool result: recorded all the same
            return {"protocolError": {"code": e.error.code, "message": e.error.message}}, True
    structured = result.structured_content
    if structured is None:  # no structured result: keep the text so the trace shows something
        structured = {"text": [getattr(b, "text", None) for b in result.content]}
    return structured, bool(result.is_error)


async def cmd_session(args: argparse.Namespace) -> int:
    if Path(args.trace).exists():
        print(f"{args.trace} exists already; a session line starts a new trace", file=sys.stderr)
        return 2
    result, _ = await call("compute", {"source": "1 1 +"})
    mcp_block = (result.get("mcp") or {}) if isinstance(result, dict) else {}
    Path(args.trace).parent.mkdir(parents=True, exist_ok=True)
    append(args.trace, {
        "kind": "session",
        "corpus": "eval/cases.json",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "serverVersion": mcp_block.get("serverVersion"),
        "assetDigest": mcp_block.get("assetDigest"),
        "backend": mcp_block.get("backend"),
        "client": f"mcp-python-sdk {sdk_version()}",
        "agent": args.agent,
    })
    print(args.trace)
    return 0


async def cmd_call(args: argparse.Namespace) -> int:
    arguments = json.loads(args.arguments)
    if not isinstance(arguments, dict):
        print("JSON-ARGUMENTS must be a JSON object", file=sys.stderr)
        return 2
    result, is_error = await call(args.tool, arguments)
    print(pretty(result))
    append(args.trace, {
        "kind": "call", "case": args.case, "lang": args.lang, "tool": args.tool,
        "arguments": arguments, "result": result, "isError": is_error,
    })
    return 0


async def cmd_answer(args: argparse.Namespace) -> int:
    append(args.trace, {"kind": "answer", "case": args.case, "lang": args.lang, "text": args.text})
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("tools").set_defaults(run=cmd_tools)
    sub.add_parser("resources").set_defaults(run=cmd_resources)
    r = sub.add_parser("read")
    r.add_argument("uri")
    r.set_defaults(run=cmd_read)
    s = sub.add_parser("session")
    s.add_argument("--trace", required=True)
    s.add_argument("--agent", required=True)
    s.set_defaults(run=cmd_session)
    for name, run in (("call", cmd_call), ("answer", cmd_answer)):
        a = sub.add_parser(name)
        a.add_argument("--trace", required=True)
        a.add_argument("--case", required=True)
        a.add_argument("--lang", required=True, choices=["en", "ja"])
        if name == "call":
            a.add_argument("tool")
            a.add_argument("arguments")
        else:
            a.add_argument("text")
        a.set_defaults(run=run)
    args = p.parse_args()
    return anyio.run(args.run, args)


if __name__ == "__main__":
    sys.exit(main())
