#!/usr/bin/env bash
# Sets everything up and runs every test: a -Werror build with the unit and end-to-end tests,
# then the same tests in an AddressSanitizer + UndefinedBehaviorSanitizer build, the unit tests
# and tests/e2e/errors.sh under valgrind memcheck (leaks are failures), and every libFuzzer
# target for a short bounded time (docs/reliability.md, "How it is tested").
#
# Time on a 2-core machine from clean build directories: 11 min 38 s with other developers' jobs
# running (CI took 19 min before memcheck ran small sizes at -O1 and the fuzzers two at a time);
# the budget is 20 minutes.
# Every phase keeps both cores busy: ctest and the memcheck jobs start longest first, and the
# fuzz targets run $(nproc) at a time.
#
# FUZZ_SECONDS (default 20) is the time per fuzz target: 12 targets, about 2 minutes in all on
# 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
jobs=$(nproc)

# seed_ctest_costs BUILD_DIR [FROM_DIR]: ctest starts the tests whose last run took longest
# first (BUILD_DIR/Testing/Temporary/CTestCostData.txt); a fresh build directory has no such
# record and would start them in name order, the slowest end-to-end tests last, on one core
# while the other idles. It gets FROM_DIR's record (the same tests in another build), or else
# these, the slowest in every build so far.
slowest_tests="e2e.hostile_names e2e.outputs e2e.safeguard e2e.demo e2e.lto e2e.elf_inputs"
seed_ctest_costs() {
  local costs=$1/Testing/Temporary/CTestCostData.txt from=${2:-}
  [ -s "$costs" ] && return 0
  mkdir -p "$(dirname "$costs")"
  if [ -n "$from" ] && [ -s "$from/Testing/Temporary/CTestCostData.txt" ]; then
    cp "$from/Testing/Temporary/CTestCostData.txt" "$costs"
  else
    local cost=100 t
    for t in $slowest_tests; do echo "$t 1 $cost"; cost=$((cost - 1)); done >"$costs"
    echo --- >>"$costs"
  fi
}

echo "== build (-Werror) and test" >&2
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLORGEN_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
seed_ctest_costs build
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== ASan + UBSan build and test" >&2
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLORGEN_WERROR=ON -DLORGEN_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
seed_ctest_costs build-asan build
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== valgrind memcheck: unit tests and errors.sh" >&2
# A build of its own at -O1: valgrind and the sanitizers do not mix, the -O2 of the -Werror build
# can make memcheck report uninitialised values that are not (valgrind's manual recommends -O0
# or -O1), and at -O0 the programs take 2.5 times the CPU under valgrind.
cmake -S . -B build-mc -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" -DLORGEN_WERROR=ON \
  >/dev/null
cmake --build build-mc -j"$jobs"
# The unit tests, and lorgen itself through tests/e2e/errors.sh (every loader's malformed
# input), two jobs at a time, the heavy cases at their small size (LORGEN_TEST_SMALL=1, set by
# tests/memcheck.sh). Left out for time, and run under ASan above: the other end-to-end tests
# (compilers and linkers), and test_placement, whose generated programs take over 10 minutes
# under valgrind (tests/memcheck.sh build-mc test_placement runs it locally).
MEMCHECK_SKIP=test_placement MEMCHECK_JOBS=$jobs LORGEN_MEMCHECK_E2E=1 tests/memcheck.sh build-mc

echo "== fuzz every reader for ${FUZZ_SECONDS:-20} s each, $jobs at a time" >&2
FUZZ_JOBS=$jobs tests/fuzz/run.sh "${FUZZ_SECONDS:-20}" build-fz
