#!/usr/bin/env bash
# Sets everything up and runs every test: a -Werror build with the unit and end-to-end tests,
# then the same tests in an AddressSanitizer + UndefinedBehaviorSanitizer build, the unit tests
# under valgrind memcheck (leaks are failures), and every libFuzzer target for a short bounded
# time (docs/reliability.md). The whole run stays under 20 minutes on a 2-core machine.
#
# FUZZ_SECONDS (default 20) is the time per fuzz target: 11 targets, about 4 minutes in all.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
jobs=$(nproc)

echo "== build (-Werror) and test" >&2
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLORGEN_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== ASan + UBSan build and test" >&2
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLORGEN_WERROR=ON -DLORGEN_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== valgrind memcheck: unit tests and errors.sh" >&2
# A plain Debug build: valgrind and the sanitizers do not mix. The unit tests, and lorgen itself
# through tests/e2e/errors.sh (every loader's malformed input). Left out for time, and run
# under ASan above: the other end-to-end tests (compilers and linkers), and test_placement, whose
# generated programs take over 10 minutes under valgrind (tests/memcheck.sh build-mc
# test_placement runs it locally).
cmake -S . -B build-mc -DCMAKE_BUILD_TYPE=Debug -DLORGEN_WERROR=ON >/dev/null
cmake --build build-mc -j"$jobs"
MEMCHECK_SKIP=test_placement MEMCHECK_JOBS=$jobs LORGEN_MEMCHECK_E2E=1 tests/memcheck.sh build-mc

echo "== fuzz every reader for ${FUZZ_SECONDS:-20} s each" >&2
tests/fuzz/run.sh "${FUZZ_SECONDS:-20}" build-fz
