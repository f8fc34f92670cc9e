#!/usr/bin/env bash
# npm run test:proofs, the proofs lane (CI runs it after npm test: .ci/run): what takes minutes
# and proves what the fast lane cannot — the unit suite's database files and the API suite on
# PostgreSQL (the console fuzz at full volume among them), the volume proofs on the embedded
# database (memory caps), the scale suites (three instances on PostgreSQL and Redis), and the production
# build made on the lowest Node.js line booted and tested on each further line (EXTRA_NODE_MAJORS,
# default "24 26"; "" skips them). Each test runs in exactly one lane: npm test covers the embedded
# database (UNIT_DATABASES=pglite, API_DATABASES=pglite), this lane PostgreSQL. Ends with one
# summary table and, as its last line, `N passed, N failed[, N skipped]` (scripts/lane.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lane.sh

if ! use_lowest_node; then
  echo "0 passed, 1 failed"
  exit 1
fi
lane_begin proofs "npm run test:proofs on Node.js $(node --version)"

# The one build npm test made (built here only when there is none, e.g. this lane alone).
run_stage build "production build (current after npm test)" check npx tsx scripts/build.ts
build_failed() { stage_selected build && ! stage_passed build; }

postgres_problem=$(node -e '
  const pg = require("pg");
  const client = new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/test", connectionTimeoutMillis: 1500 });
  client.connect().then(() => client.query("SELECT 1")).then(
    () => client.end().then(() => process.exit(0)),
    (error) => { console.log(`PostgreSQL at 127.0.0.1:5432 (database test) is not reachable: ${error.message}`); process.exit(0); },
  );' 2>&1) || postgres_problem="PostgreSQL could not be probed"

# The unit files that run per database (tests/support/databases.ts); their database-free tests
# ran in npm test.
unit_database_files() {
  grep -rlE 'testDatabases|databasesOfRun|postgresDatabase' --include='*.test.ts' lib scripts tests/unit tests/security |
    grep -v '\.api\.test\.ts$' | sort
}

if [ -n "$postgres_problem" ]; then
  skip_stage unit-postgres "unit tests, database files (PostgreSQL)" vitest "$postgres_problem"
  skip_stage api-postgres "API tests (production server, PostgreSQL)" vitest "$postgres_problem"
else
  # shellcheck disable=SC2046 # word splitting of the file list is meant
  run_stage unit-postgres "unit tests, database files (PostgreSQL)" vitest \
    env UNIT_DATABASES=postgres npx vitest run --project unit $(lane_files unit-postgres $(unit_database_files))
  if build_failed; then
    skip_stage api-postgres "API tests (production server, PostgreSQL)" vitest "the production build failed"
  else
    # shellcheck disable=SC2046
    run_stage api-postgres "API tests (production server, PostgreSQL)" vitest \
      env API_DATABASES=postgres npx vitest run --project api $(lane_files api-postgres)
  fi
fi

# The volume proofs on the embedded database: the unit files that prove memory caps over 70 MB
# inputs (vitest's "volume" project). The console fuzz sends its full 1,000 requests per route in
# the PostgreSQL stage above (npm test sends a sample of 200 on the embedded database).
# shellcheck disable=SC2046
run_stage volume "volume tests (PGlite: memory caps)" vitest env UNIT_DATABASES=pglite npx vitest run --project volume $(lane_files volume)

# Three production instances on PostgreSQL and a Redis of the suite's own; without PostgreSQL,
# Redis or redis-server the stage is skipped with the reason its global setup gives.
scale_problem=$(npx tsx -e 'import("./tests/scale/global-setup.ts").then(async (setup) => {
  const reason = await setup.unavailable();
  if (reason !== null) console.log(reason);
  process.exit(0);
});' 2>&1) || scale_problem="the scale suite's services could not be probed: $scale_problem"
if [ -n "$scale_problem" ]; then
  skip_stage scale "scale tests (three instances, PostgreSQL and Redis)" vitest "$scale_problem"
elif build_failed; then
  skip_stage scale "scale tests (three instances, PostgreSQL and Redis)" vitest "the production build failed"
else
  # shellcheck disable=SC2046
  run_stage scale "scale tests (three instances, PostgreSQL and Redis)" vitest \
    npx vitest run --project scale $(lane_files scale)
fi

# On each further line: the /v1 path end to end — the contract, bad input, concurrency and
# revocation, key access, rate-limit headers, bulk batches over /v1, MCP and the process front —
# against the embedded database (PGlite in its worker thread: WebAssembly and worker_threads, the
# Node.js-sensitive half; the pg client is plain sockets), served by the build made on the lowest
# line (the build fingerprint holds no Node.js major: lib/cli/build.ts). The console's pages and
# routes, teams, privacy, the clients and the database-level suites run on the lowest line: the
# same runtime through the same server (docs/operations.md "Node.js versions").
NODE_LINE_FILES=(tests/api/contract.test.ts tests/api/bad-input.test.ts tests/api/concurrency.test.ts
  tests/api/revocation.test.ts tests/api/key-access.test.ts tests/api/ratelimit-headers.test.ts tests/api/health.test.ts
  tests/api/v1-batches.test.ts tests/api/mcp.test.ts tests/api/front.test.ts)
api_on_node_line() {
  local major=$1 node_bin
  shift
  node_bin=$(node_bin_dir "$major") || return 1
  echo "Node.js $("$node_bin/node" --version) ($node_bin/node)"
  # Never a rebuild on this line: the lowest line's build must be current here too.
  PATH="$node_bin:$PATH" npx tsx scripts/build.ts --check || return 1
  PATH="$node_bin:$PATH" API_DATABASES=pglite npx vitest run --project api "$@"
}
for major in ${EXTRA_NODE_MAJORS-24 26}; do
  [ "$major" = "$LOWEST_NODE_MAJOR" ] && continue
  if build_failed; then
    skip_stage "node$major" "API tests on Node.js $major (PGlite, the same build)" vitest "the production build failed"
    continue
  fi
  # shellcheck disable=SC2046
  run_stage "node$major" "API tests on Node.js $major (PGlite, the same build)" vitest \
    api_on_node_line "$major" $(lane_files "node$major" "${NODE_LINE_FILES[@]}")
done

lane_end
