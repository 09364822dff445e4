#!/usr/bin/env bash
# Runs the cmocka unit tests under valgrind memcheck: any invalid access, use of an uninitialised
# value, or definite or indirect leak fails the run.
#
#   tests/memcheck.sh BUILD_DIR [TEST_NAME...]
#
# BUILD_DIR is a build without sanitizers (valgrind and ASan do not mix), e.g.
#   cmake -S . -B build-mc -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1"
#   cmake --build build-mc
# (-O1: at -O2 memcheck may report uninitialised values that are not; -O0 is 2.5 times slower).
# Without names every tests/test_*.c program runs but those MEMCHECK_SKIP lists (blank-separated
# names). MEMCHECK_JOBS (default 1) programs run at a time. LORGEN_MEMCHECK_E2E=1 also runs
# tests/e2e/errors.sh (every loader's malformed input through the CLI, about 30 lorgen runs)
# with lorgen under valgrind, as one more job beside the unit tests; the other end-to-end tests
# drive compilers and linkers for minutes and are left to the ASan build.
#
# The programs run with LORGEN_TEST_SMALL=1: the few cases whose full size takes minutes under
# valgrind (long traces, every prefix of large files) run a smaller input of the same kinds and
# say so in their output (lg_test_small); the full sizes run in the normal and ASan builds.
# Jobs start longest first, by the CPU seconds of the last run (BUILD_DIR/tests/memcheck.times),
# or, in a fresh build directory, by the list below, so that no long program starts last.
set -euo pipefail
build=$(cd "${1:?usage: tests/memcheck.sh BUILD_DIR [TEST_NAME...]}" && pwd)
shift
src=$(cd "$(dirname "$0")/.." && pwd)
# Exit status valgrind gives a run with errors: distinct from a failing test's own status.
vg_error_status=99
vg=(valgrind --quiet --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect --error-exitcode=$vg_error_status)
export LORGEN_TEST_SMALL=1
# The slowest jobs under memcheck, slowest first (CPU seconds with LORGEN_TEST_SMALL=1 at -O1,
# 2026-11-27): the start order when no earlier run has left its times.
slowest_first=(e2e.errors test_perf_script test_prf test_winidea_bin test_algorithms test_br
               test_elfsym test_cli_order test_timeline test_intmap)
# Each job's CPU seconds of this run, one "NAME SECONDS" line each; the next run starts by them.
times=$build/tests/memcheck.times

if [ $# -gt 0 ]; then
  tests=("$@")
else
  tests=()
  for c in "$src"/tests/test_*.c; do
    t=$(basename "$c" .c)
    case " ${MEMCHECK_SKIP:-} " in *" $t "*) echo "memcheck: $t skipped (MEMCHECK_SKIP)" >&2 ;;
                                   *) tests+=("$t") ;; esac
  done
fi
jobs=("${tests[@]}")
e2e=0
if [ "${LORGEN_MEMCHECK_E2E:-0}" = 1 ]; then
  e2e=1
  jobs+=(e2e.errors)
fi

# Longest first: by the last run's seconds; a job without any (new) comes first, as it may be
# long; without a times file, the list above, then the rest in name order.
order_jobs() {
  local j rank
  for j in "${jobs[@]}"; do
    if [ -s "$times" ]; then
      rank=$(awk -v j="$j" '$1 == j { print $2; found = 1 } END { if (!found) print 1e9 }' \
        "$times")
    else
      rank=0
      for i in "${!slowest_first[@]}"; do
        [ "${slowest_first[$i]}" = "$j" ] && rank=$((1000 - i))
      done
    fi
    printf '%s %s\n' "$rank" "$j"
  done | sort -s -k1,1gr | awk '{ print $2 }'
}

# run_one TEST: one program under valgrind; its verdict in TEST.memcheck.status, its CPU
# seconds (user + system, valgrind included) in TEST.memcheck.cpu.
run_one() {
  local t=$1 exe=$build/tests/$1 start=$SECONDS status=0 TIMEFORMAT='%U %S'
  # cmocka's output goes to .out; valgrind's report to .log, both shown on failure.
  { time (cd "$build/tests" && CMOCKA_MESSAGE_OUTPUT=stdout "${vg[@]}" \
    --log-file="$build/tests/$t.memcheck.log" "$exe" >"$build/tests/$t.memcheck.out" 2>&1) ||
    status=$?; } 2>"$build/tests/$t.memcheck.time"
  report "$t" "$status" "$start"
}

# report JOB STATUS START: prints the verdict and keeps the status and CPU seconds.
report() {
  local t=$1 status=$2 start=$3 cpu
  cpu=$(awk '{ printf "%.0f", $1 + $2 }' "$build/tests/$t.memcheck.time")
  if [ "$status" -eq 0 ]; then
    echo "memcheck: $t ok ($((SECONDS - start)) s, CPU $cpu s)" >&2
  elif [ "$status" -eq "$vg_error_status" ]; then
    echo "memcheck: $t: valgrind found errors" >&2
  else
    echo "memcheck: $t: exit $status" >&2
  fi
  echo "$cpu" >"$build/tests/$t.memcheck.cpu"
  echo "$status" >"$build/tests/$t.memcheck.status"
}

# run_errors: tests/e2e/errors.sh runs lorgen on broken inputs, every run through valgrind via a
# wrapper. A lorgen run with valgrind errors exits with vg_error_status, which errors.sh reports
# as an unexpected status; the log of that process says why.
run_errors() {
  local t=e2e.errors start=$SECONDS status=0 TIMEFORMAT='%U %S'
  local wrapper=$build/tests/lorgen-memcheck logs=$build/tests/lorgen-memcheck-logs
  # errors.sh runs some cases as an unprivileged user, whose valgrind must write its log too.
  rm -rf "$logs" && mkdir -p "$logs" && chmod 1777 "$logs"
  printf '#!/bin/sh\nexec %s --log-file=%s/%%p.log "%s" "$@"\n' \
    "${vg[*]}" "$logs" "$build/lorgen" >"$wrapper"
  chmod +x "$wrapper"
  { time bash "$src/tests/e2e/errors.sh" "$wrapper" "$src" "$build/tests/e2e-memcheck" \
      >"$build/tests/$t.memcheck.out" 2>&1 || status=$?; } 2>"$build/tests/$t.memcheck.time"
  report "$t" "$status" "$start"
}

for t in "${tests[@]}"; do
  [ -x "$build/tests/$t" ] || { echo "memcheck: $build/tests/$t is not built" >&2; exit 1; }
done
for t in "${jobs[@]}"; do
  rm -f "$build/tests/$t.memcheck.status" "$build/tests/$t.memcheck.cpu"
done
mapfile -t ordered < <(order_jobs)
# MEMCHECK_JOBS jobs at a time (default 1). They share the scratch directory as they do under
# ctest -j, where the unit tests already run side by side.
for t in "${ordered[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "${MEMCHECK_JOBS:-1}" ]; do wait -n || true; done
  if [ "$t" = e2e.errors ]; then run_errors & else run_one "$t" & fi
done
wait

failed=()
for t in "${jobs[@]}"; do
  status=$(cat "$build/tests/$t.memcheck.status" 2>/dev/null || echo missing)
  if [ "$status" != 0 ]; then
    failed+=("$t")
    if [ "$t" = e2e.errors ]; then
      cat "$build/tests/$t.memcheck.out" >&2 || true
    else
      tail -n 40 "$build/tests/$t.memcheck.log" "$build/tests/$t.memcheck.out" >&2 || true
    fi
  fi
done
# The next run's order: this run's seconds, and the last known ones of jobs not run this time.
{
  for t in "${jobs[@]}"; do
    [ -s "$build/tests/$t.memcheck.cpu" ] && echo "$t $(cat "$build/tests/$t.memcheck.cpu")"
  done
  [ -s "$times" ] && awk 'NR == FNR { ran[$1] = 1; next } !($1 in ran)' \
    <(printf '%s\n' "${jobs[@]}") "$times"
} >"$times.new" || true
mv "$times.new" "$times"

if [ ${#failed[@]} -gt 0 ]; then
  echo "memcheck: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "memcheck: all ${#tests[@]} unit test programs clean$([ $e2e = 1 ] && echo ", and errors.sh")" >&2
