#!/usr/bin/env bash
# npm test: every suite — unit, API integration (PGlite, and PostgreSQL when reachable),
# Playwright in Debian's Chromium — against a production build.
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
