#!/usr/bin/env python3
"""End-to-end test of ajisai-mcp-server with the official MCP Python SDK (`mcp`, pinned in
requirements.txt beside this file), over stdio or Streamable HTTP, in every protocol mode
the SDK can drive.

usage:
  e2e.py --stdio <path of ajisai-mcp-server> [--protocol P]
  e2e.py --http <URL of /mcp> [--token T] [--protocol P]

--protocol (default: all) is one of
  sdk-default  `Client(server)` with no `mode`: the SDK's own default, `mode="auto"`, which
               probes `server/discover` at 2026-07-28 and falls back to `initialize` only
               when the server is not a 2026-07-28 server. Against this server it must
               settle on 2026-07-28 through `server/discover`.
  legacy       `Client(server, mode="legacy")`: the `initialize` lifecycle at the SDK's
               newest handshake revision, 2025-11-25.
  2026-07-28   `Client(server, mode="2026-07-28")`: the revision pinned, no probe; every
               request carries the per-request `_meta` keys.
  2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25
               an `initialize` offering exactly that revision, through the SDK's
               `ClientSession` (its `Client` always offers 2025-11-25).
  all          every mode above, one after the other.

In each mode: the negotiated revision, the tools in order, every tool called, resources
and the Word template read, an unknown tool and an unknown resource, and on every tool
result the text mirror compared byte for byte with
`json.dumps(structuredContent, separators=(",", ":"), ensure_ascii=False)` and
`mcp.limitProfile` (`mcp-local-stdio` over stdio, `mcp-remote-http` over HTTP). A source
with a lone surrogate is offered to the SDK (SDK 2.3.0 refuses to encode it on both
transports and drops the connection, so it runs on a connection of its own), and then sent
the way Python's `json.dumps` writes it (`\\ud800`) on a plain connection beside the SDK's:
the server reads it as U+FFFD. With --token, the HTTP server must also refuse requests
without the token or with a wrong one (401).

Prints one JSON summary line on stdout; failures go to stderr and exit 1.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import tempfile
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

TOOLS = ["compute", "check", "infer_contracts", "word_contract"]
HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN = "2026-07-28"
MODES = ["sdk-default", "legacy", MODERN, *HANDSHAKE]
ACCEPT = "application/json, text/event-stream"
SURROGATE_SOURCE = "'\ud800' CHARS"
# Every escape class: non-ASCII, tab, a C0 control, DEL, U+2028, quote, backslash, astral.
ESCAPES_SOURCE = "'é\t\u0001\u007f\u2028\"\\\\ あ😀' CHARS"
CLIENT_INFO = types.Implementation(name="ajisai-e2e-python", version="1.0.0")
READ_TIMEOUT = 30  # seconds the SDK waits for one answer
TIMEOUT = 60  # seconds for one plain request, and a third of one mode's whole run

failures: list[str] = []


def check(ok: bool, what: str) -> bool:
    if not ok:
        failures.append(what)
    return ok


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Target:
    """Where the server is, and how each connection to it is made."""

    def __init__(self, args: argparse.Namespace, errlog: Any) -> None:
        self.stdio = args.stdio
        self.url = args.http
        self.token = args.token
        self.errlog = errlog
        self.transport = "stdio" if self.stdio else "http"
        self.profile = "mcp-local-stdio" if self.stdio else "mcp-remote-http"
        self.requests: list[httpx2.Request] = []  # every HTTP request the SDK made

    def params(self) -> StdioServerParameters:
        # The SDK passes only its safe default variables (PATH, HOME, …), so no AJISAI_*
        # setting of the caller's reaches the server: the default profile applies.
        return StdioServerParameters(command=self.stdio, args=[])

    def http_client(self, record: bool = True) -> httpx2.AsyncClient:
        async def on_request(request: httpx2.Request) -> None:
            self.requests.append(request)

        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        return httpx2.AsyncClient(
            headers=headers,
            timeout=httpx2.Timeout(30.0, read=60.0),
            event_hooks={"request": [on_request]} if record else None,
        )

    def sdk_transport(self) -> Any:
        if self.stdio:
            return stdio_client(self.params(), errlog=self.errlog)
        return streamable_http_client(self.url, http_client=self.http_client())

    def client(self, mode: str) -> Client:
        # A Transport (what `Client(url)` and `Client(StdioServerParameters(...))` build
        # themselves), so that the HTTP client carries the token and stdio keeps the
        # server's stderr.
        server = self.sdk_transport()
        if mode == "sdk-default":
            # No `mode`: the SDK's default.
            return Client(server, client_info=CLIENT_INFO, read_timeout_seconds=READ_TIMEOUT)
        return Client(server, client_info=CLIENT_INFO, read_timeout_seconds=READ_TIMEOUT, mode=mode)

    @asynccontextmanager
    async def connect(self, mode: str):
        """Yield (api, info): `api` has list_tools/call_tool/read_resource/…; `info` says
        how the revision was negotiated."""
        if mode in HANDSHAKE:
            async with self.sdk_transport() as (read, write):
                async with ClientSession(
                    read, write, client_info=CLIENT_INFO, read_timeout_seconds=READ_TIMEOUT
                ) as session:
                    result = await session.send_request(
                        types.InitializeRequest(
                            params=types.InitializeRequestParams(
                                protocol_version=mode,
                                capabilities=types.ClientCapabilities(),
                                client_info=CLIENT_INFO,
                            )
                        ),
                        types.InitializeResult,
                    )
                    session.adopt(result)
                    await session.send_notification(types.InitializedNotification())
                    yield session, {
                        "via": "initialize",
                        "protocolVersion": session.protocol_version,
                        "serverInfo": result.server_info,
                        "capabilities": result.capabilities,
                    }
            return
        async with self.client(mode) as client:
            session = client.session
            via = (
                "server/discover"
                if session.discover_result is not None and mode == "sdk-default"
                else ("pinned" if mode == MODERN else "initialize")
            )
            yield client, {
                "via": via,
                "protocolVersion": client.protocol_version,
                "serverInfo": client.server_info,
                "capabilities": client.server_capabilities,
                "discover": session.discover_result,
                "initialize": session.initialize_result,
            }


def expected_version(mode: str) -> str:
    return {"sdk-default": MODERN, "legacy": "2025-11-25"}.get(mode, mode)


def envelope_of(result: types.CallToolResult, label: str, target: Target, version: str) -> dict:
    env = result.structured_content
    check(isinstance(env, dict), f"{label}: structuredContent is an object")
    env = env if isinstance(env, dict) else {}
    check(
        len(result.content) == 1 and result.content[0].type == "text",
        f"{label}: one text block, got {[c.type for c in result.content]}",
    )
    text = result.content[0].text if result.content and result.content[0].type == "text" else ""
    check(
        text == compact(env),
        f"{label}: the text block is byte for byte json.dumps(structuredContent, "
        f"separators=(',', ':'), ensure_ascii=False)\n  text:  {text[:300]}\n  dumps: {compact(env)[:300]}",
    )
    try:
        check(json.loads(text) == env, f"{label}: the text block parses to structuredContent")
    except ValueError as e:
        check(False, f"{label}: the text block is not JSON: {e}")
    status = env.get("status")
    check(status in ("ok", "error", "hostError"), f"{label}: status {status!r}")
    check(
        (result.is_error is True) == (status == "hostError"),
        f"{label}: isError ({result.is_error}) iff status hostError ({status})",
    )
    profile = (env.get("mcp") or {}).get("limitProfile")
    check(profile == target.profile, f"{label}: mcp.limitProfile {profile!r}, want {target.profile!r}")
    # 2026-07-28 adds `resultType` to every result; earlier revisions have none.
    on_wire = "result_type" in result.model_fields_set
    check(
        on_wire == (version == MODERN),
        f"{label}: resultType on the wire is {on_wire} at {version}",
    )
    return env


async def run_mode(target: Target, mode: str) -> dict:
    want = expected_version(mode)
    out: dict[str, Any] = {}
    target.requests.clear()
    async with target.connect(mode) as (api, info):
        label = f"[{target.transport} {mode}]"
        version = info["protocolVersion"]
        out["protocolVersion"] = version
        out["via"] = info["via"]
        check(version == want, f"{label} negotiated {version!r}, want {want!r}")
        if mode == "sdk-default":
            d = info.get("discover")
            check(d is not None, f"{label} server/discover answered (no initialize fallback)")
            check(info.get("initialize") is None, f"{label} no initialize was sent")
            if d is not None:
                out["supportedVersions"] = d.supported_versions
                check(
                    d.supported_versions == [*HANDSHAKE, MODERN],
                    f"{label} discover supportedVersions {d.supported_versions}",
                )
        if mode != MODERN:  # a pinned revision sends no discover: nothing names the server
            si = info["serverInfo"]
            check(si is not None and si.name == "ajisai", f"{label} serverInfo {si}")
            caps = info["capabilities"]
            check(
                caps is not None and caps.tools is not None and caps.resources is not None and caps.prompts is None,
                f"{label} capabilities {caps}",
            )

        # ---- tools ---------------------------------------------------------------------
        listed = await api.list_tools()
        names = [t.name for t in listed.tools]
        check(names == TOOLS, f"{label} tools in order: {names}")
        for t in listed.tools:
            check(t.input_schema.get("additionalProperties") is False, f"{label} {t.name}: additionalProperties false")
            check(
                (t.output_schema or {}).get("$id") == "ajisai://schema/result",
                f"{label} {t.name}: outputSchema is ajisai://schema/result",
            )
            a = t.annotations
            check(
                a is not None and a.read_only_hint is True and a.idempotent_hint is True,
                f"{label} {t.name}: read-only, idempotent annotations",
            )

        calls = 0

        async def call(name: str, arguments: dict, what: str | None = None) -> tuple[types.CallToolResult, dict]:
            nonlocal calls
            calls += 1
            # The SDK validates structuredContent against the listed outputSchema (jsonschema).
            result = await api.call_tool(name, arguments)
            return result, envelope_of(result, f"{label} {what or name}", target, version)

        _, env = await call("compute", {"source": "2 3 DIV 1 3 DIV ADD"})
        check(env.get("status") == "ok" and env.get("stackDisplay") == ["1/1"], f"{label} compute: 1/1, got {env}")
        _, env = await call("compute", {"source": ESCAPES_SOURCE}, "compute (escapes)")
        check(env.get("status") == "ok", f"{label} compute (escapes): ok, got {env.get('status')}")
        _, env = await call("compute", {"source": "[ 1 2 3 ] LENGHT"}, "compute (unknownWord)")
        check(
            env.get("status") == "error" and (env.get("error") or {}).get("category") == "unknownWord",
            f"{label} compute: unknownWord, got {env.get('error')}",
        )
        _, env = await call("check", {"source": "{ FOO } 'BAR' DEF 1"})
        check(
            env.get("status") == "error" and (env.get("error") or {}).get("category") == "unknownWord",
            f"{label} check: stricter than compute, got {env.get('status')}",
        )
        _, env = await call("infer_contracts", {"source": "{ [ 1 ] + } 'INC' DEF"})
        suggested = ((env.get("contracts") or [{}])[0]).get("suggested")
        check(
            suggested == "#:contract INC inputs=1 outputs=1 field=closed",
            f"{label} infer_contracts: {suggested!r}",
        )
        _, word_env = await call("word_contract", {"word": "ADD"})
        check(
            word_env.get("status") == "ok" and ((word_env.get("matches") or [{}])[0]).get("name") == "ADD",
            f"{label} word_contract ADD",
        )
        result, env = await call("evaluate", {"source": "1"}, "unknown tool")
        check(
            result.is_error is True
            and env.get("status") == "hostError"
            and (env.get("error") or {}).get("code") == "unknownTool",
            f"{label} unknown tool: hostError unknownTool, got {compact(env)[:300]}",
        )
        out["toolCalls"] = calls

        # ---- resources -----------------------------------------------------------------
        resources = [r.uri for r in (await api.list_resources()).resources]
        for uri in ["ajisai://guide/quickstart", "ajisai://limits"]:
            check(uri in resources, f"{label} {uri} listed: {resources}")
        templates = [t.uri_template for t in (await api.list_resource_templates()).resource_templates]
        check(templates == ["ajisai://words/{name}"], f"{label} the Word template: {templates}")

        read = await api.read_resource("ajisai://limits")
        check(len(read.contents) == 1, f"{label} ajisai://limits: one contents item")
        limits = json.loads(read.contents[0].text)
        check(limits.get("profile") == target.profile, f"{label} ajisai://limits profile {limits.get('profile')!r}")
        check(len(limits.get("limits") or {}) == 13, f"{label} ajisai://limits: thirteen limits")

        read = await api.read_resource("ajisai://guide/quickstart")
        c = read.contents[0]
        check(c.mime_type == "text/markdown" and len(c.text) > 0, f"{label} quickstart: markdown text")

        read = await api.read_resource("ajisai://words/ADD")
        text = read.contents[0].text
        check(
            ((json.loads(text).get("matches") or [{}])[0]).get("name") == "ADD",
            f"{label} ajisai://words/ADD reads ADD",
        )
        check(text == compact(word_env), f"{label} ajisai://words/ADD: the same text as word_contract ADD")

        try:
            await api.read_resource("ajisai://nothing-here")
            check(False, f"{label} an unknown resource is a JSON-RPC error")
        except MCPError as e:
            # Resource not found: -32002 before 2026-07-28; 2026-07-28 retired that code and
            # answers INVALID_PARAMS, -32602 (SEP-2164; rmcp upgrades the code per revision).
            want_code = -32602 if version == MODERN else -32002
            check(e.code == want_code, f"{label} unknown resource: code {e.code}, want {want_code}")
            check("ajisai://nothing-here" in e.error.message, f"{label} unknown resource: {e.error.message}")

    # ---- what the SDK put on the HTTP wire -------------------------------------------------
    if target.url:
        posts = [r for r in target.requests if r.method == "POST"]
        sent = sorted({r.headers.get("mcp-protocol-version", "") for r in posts})
        out["httpPosts"] = len(posts)
        out["protocolHeaders"] = sent
        if mode in HANDSHAKE or mode == "legacy":
            # initialize itself may go without the header; every later POST names the revision.
            later = {r.headers.get("mcp-protocol-version") for r in posts[1:]}
            check(later == {want}, f"[http {mode}] MCP-Protocol-Version after initialize: {later}")
        else:
            check(sent == [MODERN], f"[http {mode}] MCP-Protocol-Version on every POST: {sent}")
            methods = {r.headers.get("mcp-method") for r in posts}
            check(None not in methods, f"[http {mode}] Mcp-Method on every POST: {methods}")
            if mode == "sdk-default":
                first = json.loads(posts[0].content) if posts else {}
                check(first.get("method") == "server/discover", f"[http {mode}] first POST is server/discover")
        if target.token:
            auth = {r.headers.get("authorization") for r in target.requests}
            check(auth == {f"Bearer {target.token}"}, f"[http {mode}] Authorization on every request")

    out["surrogate"] = await surrogate(target, mode)
    return out


def leaves(exc: BaseException) -> list[str]:
    """The innermost exceptions of an exception group, as text."""
    if isinstance(exc, BaseExceptionGroup):
        return [text for e in exc.exceptions for text in leaves(e)]
    return [f"{type(exc).__name__}: {exc}"]


def find(exc: BaseException, kinds: tuple[type, ...]) -> BaseException | None:
    if isinstance(exc, kinds):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for e in exc.exceptions:
            if (hit := find(e, kinds)) is not None:
                return hit
    if exc.__cause__ is not None:
        return find(exc.__cause__, kinds)
    return None


def check_surrogate_answer(env: dict, label: str) -> None:
    check(
        env.get("status") == "ok" and env.get("stackDisplay") == ["[ '\ufffd' ]"],
        f"{label}: a lone surrogate reads as U+FFFD, got {compact(env)[:300]}",
    )


async def surrogate(target: Target, mode: str) -> dict:
    """A source with a lone surrogate: first through the SDK (which, in 2.3.0, cannot encode
    it), then as Python's json.dumps writes it, on a plain connection."""
    label = f"[{target.transport} {mode}] lone surrogate"
    out: dict[str, Any] = {}
    try:
        with anyio.fail_after(TIMEOUT):
            async with target.connect(mode) as (api, info):
                result = await api.call_tool("compute", {"source": SURROGATE_SOURCE})
                env = envelope_of(result, f"{label} (SDK)", target, info["protocolVersion"])
                check_surrogate_answer(env, f"{label} (SDK)")
                out["sdk"] = "sent"
    except Exception as e:  # noqa: BLE001 - the SDK's refusal is recorded, not a failure
        hit = find(e, (UnicodeEncodeError,)) or find(e, (ValueError,))
        if hit is not None and "surrogates not allowed" in str(hit):
            out["sdk"] = f"refused: {type(hit).__name__}: {str(hit)[-160:]}"
        else:
            check(False, f"{label} (SDK): unexpected {'; '.join(leaves(e))}"[:600])
            out["sdk"] = f"error: {type(e).__name__}"

    # The same request as a plain client writes it with json.dumps (ensure_ascii: `\ud800`).
    version = expected_version(mode)
    params: dict[str, Any] = {"name": "compute", "arguments": {"source": SURROGATE_SOURCE}}
    if version == MODERN:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": CLIENT_INFO.model_dump(exclude_none=True),
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
    check("\\ud800" in call, f"{label}: json.dumps writes the escape")
    with anyio.fail_after(TIMEOUT):
        if target.url:
            answer = await raw_http(target, version, call)
        else:
            answer = await raw_stdio(target, version, call)
    result = types.CallToolResult.model_validate(answer.get("result") or {})
    env = envelope_of(result, f"{label} (json.dumps)", target, version)
    check_surrogate_answer(env, f"{label} (json.dumps)")
    out["jsonDumps"] = env.get("stackDisplay")
    return out


async def raw_http(target: Target, version: str, body: str) -> dict:
    headers = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": version}
    if version == MODERN:
        headers |= {"Mcp-Method": "tools/call", "Mcp-Name": "compute"}
    async with target.http_client(record=False) as http:
        response = await http.post(target.url, content=body.encode("ascii"), headers=headers)
    check(response.status_code == 200, f"raw HTTP tools/call: status {response.status_code}: {response.text[:200]}")
    return response.json()


async def raw_stdio(target: Target, version: str, call: str) -> dict:
    lines = []
    if version != MODERN:
        lines.append(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": version,
                        "capabilities": {},
                        "clientInfo": CLIENT_INFO.model_dump(exclude_none=True),
                    },
                }
            )
        )
        lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    lines.append(call)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    async with await anyio.open_process([target.stdio], env=env, stderr=target.errlog) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        await proc.stdin.send(("\n".join(lines) + "\n").encode("ascii"))
        buffer = b""
        try:
            while True:
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    message = json.loads(line)
                    if message.get("id") == 2:
                        return message
                    check("error" not in message, f"raw stdio: {line[:300]!r}")
                chunk = await proc.stdout.receive()
                buffer += chunk
        finally:
            await proc.stdin.aclose()
            proc.terminate()


async def token_refusals(target: Target) -> dict:
    """With a token set, requests without it or with a wrong one are refused (401)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    statuses = {}
    async with httpx2.AsyncClient(timeout=30.0) as http:
        for what, auth in [("none", None), ("wrong", "Bearer wrong-token-0000000000")]:
            headers = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"}
            if auth:
                headers["Authorization"] = auth
            response = await http.post(target.url, content=body, headers=headers)
            statuses[what] = response.status_code
            check(response.status_code == 401, f"[http] token {what}: status {response.status_code}, want 401")
    return statuses


async def main(args: argparse.Namespace, errlog: Any) -> dict:
    target = Target(args, errlog)
    modes = MODES if args.protocol == "all" else [args.protocol]
    summary: dict[str, Any] = {
        "sdk": "mcp",
        "sdkVersion": importlib.metadata.version("mcp"),
        "transport": target.transport,
        "limitProfile": target.profile,
        "token": bool(target.token),
        "modes": {},
    }
    if target.url and target.token:
        summary["refusedWithoutToken"] = await token_refusals(target)
    for mode in modes:
        try:
            with anyio.fail_after(3 * TIMEOUT):
                summary["modes"][mode] = await run_mode(target, mode)
        except Exception as e:  # noqa: BLE001 - report and go on with the next mode
            check(False, f"[{target.transport} {mode}] {'; '.join(leaves(e))}"[:1000])
            summary["modes"][mode] = {"error": type(e).__name__}
    return summary


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdio", metavar="BINARY", help="path of ajisai-mcp-server, run with no arguments")
    where.add_argument("--http", metavar="URL", help="URL of the server's /mcp endpoint")
    p.add_argument("--token", help="send Authorization: Bearer TOKEN (HTTP only)")
    p.add_argument("--protocol", default="all", choices=[*MODES, "all"])
    args = p.parse_args()
    if args.token and not args.http:
        p.error("--token needs --http")
    return args


if __name__ == "__main__":
    args = parse_args()
    with tempfile.TemporaryFile(mode="w+") as errlog:
        summary = anyio.run(main, args, errlog)
        if failures:
            errlog.seek(0)
            server_stderr = errlog.read()
            for f in failures:
                print(f"FAIL {f}", file=sys.stderr)
            if server_stderr:
                print("---- server stderr (stdio) ----", file=sys.stderr)
                print(server_stderr[-4000:], file=sys.stderr)
            print(json.dumps(summary, default=str), file=sys.stderr)
            sys.exit(1)
    print(json.dumps(summary))
