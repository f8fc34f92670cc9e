#!/usr/bin/env bash
# npm test, the fast lane: type check, import cycles, layers, ONE production build, the unit suite
# and the API suite on the embedded database (PGlite), and the browser tests (Playwright in
# Debian's Chromium), on the lowest Node.js line package.json's engines admit. The PostgreSQL runs
# of the unit and API suites, the scale suites, the volume proofs (memory caps, the console fuzz at
# full volume) and the further Node.js lines are the proofs lane: npm run test:proofs
# (scripts/test-proofs.sh). Ends with one summary table and, as its last line,
# `N passed, N failed[, N skipped]` (scripts/lane.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lane.sh

if ! use_lowest_node; then
  echo "0 passed, 1 failed"
  exit 1
fi
lane_begin fast "npm test on Node.js $(node --version)"

# The browser tests need Debian's Chromium; as root the script installs it (and says so).
ensure_chromium() {
  [ -x /usr/bin/chromium ] && return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian chromium for the browser tests…"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
  else
    echo "error: the browser tests need /usr/bin/chromium. Install it with: sudo apt-get install -y chromium" >&2
    return 1
  fi
}

if stage_selected e2e; then
  # Whenever the browser tests run, also in a run of chosen stages.
  LANE_STAGES=${LANE_STAGES:+$LANE_STAGES chromium}
  run_stage chromium "Chromium for the browser tests" check ensure_chromium
fi

run_stage typecheck "type check (tsc)" check npx tsc --noEmit
run_stage cycles "import cycles (madge)" check npm run --silent check:cycles
run_stage layers "layers (dependency-cruiser)" check npm run --silent check:layers
run_stage build "production build" check npx tsx scripts/build.ts

# shellcheck disable=SC2046 # word splitting of the file list is meant
run_stage unit "unit tests (PGlite)" vitest env UNIT_DATABASES=pglite npx vitest run --project unit $(lane_files unit)

if stage_selected build && ! stage_passed build; then
  skip_stage api "API tests (production server, PGlite)" vitest "the production build failed"
  skip_stage e2e "browser tests (Playwright, Chromium)" playwright "the production build failed"
else
  # shellcheck disable=SC2046
  # The console fuzz sends a sample here (200 requests per route); the proofs lane sends the full
  # volume (1,000 per route), on both databases.
  run_stage api "API tests (production server, PGlite)" vitest \
    env API_DATABASES=pglite FUZZ_REQUESTS_PER_ROUTE="${FUZZ_REQUESTS_PER_ROUTE:-200}" npx vitest run --project api $(lane_files api)
  if stage_selected e2e && ! stage_passed chromium; then
    skip_stage e2e "browser tests (Playwright, Chromium)" playwright "no /usr/bin/chromium"
  else
    # shellcheck disable=SC2046
    run_stage e2e "browser tests (Playwright, Chromium)" playwright npx playwright test $(lane_files e2e)
  fi
fi

lane_end
