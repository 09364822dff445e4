#!/usr/bin/env bash
# Runs the cmocka unit tests under valgrind memcheck: any invalid access, use of an uninitialised
# value, or definite or indirect leak fails the run.
#
#   tests/memcheck.sh BUILD_DIR [TEST_NAME...]
#
# BUILD_DIR is a build without sanitizers (valgrind and ASan do not mix), e.g.
#   cmake -S . -B build-mc -DCMAKE_BUILD_TYPE=Debug && cmake --build build-mc
# Without names every tests/test_*.c program runs but those MEMCHECK_SKIP lists (blank-separated
# names). MEMCHECK_JOBS (default 1) programs run at a time. LORGEN_MEMCHECK_E2E=1 also runs
# tests/e2e/errors.sh (every loader's malformed input through the CLI, about 30 lorgen runs)
# with lorgen under valgrind; the other end-to-end tests drive compilers and linkers for minutes
# and are left to the ASan build.
set -euo pipefail
build=$(cd "${1:?usage: tests/memcheck.sh BUILD_DIR [TEST_NAME...]}" && pwd)
shift
src=$(cd "$(dirname "$0")/.." && pwd)
# Exit status valgrind gives a run with errors: distinct from a failing test's own status.
vg_error_status=99
vg=(valgrind --quiet --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect --error-exitcode=$vg_error_status)

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

# run_one TEST: one program under valgrind; its verdict in TEST.memcheck.status.
run_one() {
  local t=$1 exe=$build/tests/$1 start=$SECONDS status=0
  # cmocka's output goes to .out; valgrind's report to .log, both shown on failure.
  (cd "$build/tests" && CMOCKA_MESSAGE_OUTPUT=stdout "${vg[@]}" \
    --log-file="$build/tests/$t.memcheck.log" "$exe" >"$build/tests/$t.memcheck.out" 2>&1) ||
    status=$?
  if [ "$status" -eq 0 ]; then
    echo "memcheck: $t ok ($((SECONDS - start)) s)" >&2
  elif [ "$status" -eq "$vg_error_status" ]; then
    echo "memcheck: $t: valgrind found errors" >&2
  else
    echo "memcheck: $t: exit $status" >&2
  fi
  echo "$status" >"$build/tests/$t.memcheck.status"
}

for t in "${tests[@]}"; do
  [ -x "$build/tests/$t" ] || { echo "memcheck: $build/tests/$t is not built" >&2; exit 1; }
  rm -f "$build/tests/$t.memcheck.status"
done
# MEMCHECK_JOBS programs at a time (default 1). They share the scratch directory as they do
# under ctest -j, where the unit tests already run side by side.
for t in "${tests[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "${MEMCHECK_JOBS:-1}" ]; do wait -n || true; done
  run_one "$t" &
done
wait

failed=()
for t in "${tests[@]}"; do
  status=$(cat "$build/tests/$t.memcheck.status" 2>/dev/null || echo missing)
  if [ "$status" != 0 ]; then
    failed+=("$t")
    tail -40 "$build/tests/$t.memcheck.log" "$build/tests/$t.memcheck.out" >&2 || true
  fi
done

if [ "${LORGEN_MEMCHECK_E2E:-0}" = 1 ]; then
  # errors.sh runs lorgen on broken inputs: every run goes through valgrind via a wrapper.
  wrapper=$build/tests/lorgen-memcheck
  logs=$build/tests/lorgen-memcheck-logs
  # errors.sh runs some cases as an unprivileged user, whose valgrind must write its log too.
  rm -rf "$logs" && mkdir -p "$logs" && chmod 1777 "$logs"
  printf '#!/bin/sh\nexec %s --log-file=%s/%%p.log "%s" "$@"\n' \
    "${vg[*]}" "$logs" "$build/lorgen" >"$wrapper"
  chmod +x "$wrapper"
  if ! bash "$src/tests/e2e/errors.sh" "$wrapper" "$src" "$build/tests/e2e-memcheck"; then
    failed+=(e2e.errors)
  fi
  # A lorgen run with valgrind errors exits with vg_error_status, which errors.sh reports as an
  # unexpected status; the log of that process says why.
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "memcheck: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "memcheck: all ${#tests[@]} unit test programs clean" >&2
