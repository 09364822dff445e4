#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for a bounded time, one after another.
#
#   tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
#
# SECONDS per target (default 30); BUILD_DIR default build-fz, configured with clang and
# LORGEN_FUZZ=ON and built when needed. Each target first re-runs its regression inputs
# (tests/fuzz/regressions/TARGET/: every crash found so far), then fuzzes from its corpus
# (BUILD_DIR/fuzz-corpus/TARGET, seeded from tests/fixtures and kept between runs, so longer local
# runs build on earlier ones). Findings land in BUILD_DIR/fuzz-artifacts/TARGET/. One line per
# target reports executions, executions per second, coverage and findings; the exit status is 1
# when any target found something.
# Findings of an earlier run are cleared: move them to tests/fuzz/regressions/ once fixed.
#
# FUZZ_TARGETS="prf lor" limits the run to some targets. FUZZ_JOBS (default 1) targets run at a
# time, each in one single-threaded process: with no more jobs than free cores, each target gets
# a core of its own for its SECONDS, as it would alone (the exec/s column shows it), and the
# whole run takes 1/FUZZ_JOBS of the time. The lines are printed in target order at the end.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-30}
build=${2:-$src/build-fz}
# Every fuzz_<target>.c but the helpers, as tests/fuzz/CMakeLists.txt globs them.
targets=${FUZZ_TARGETS:-$(cd "$src/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//' | grep -vxE 'util|seeds' | tr '\n' ' ')}
# Longest input the fuzzer makes, in bytes: large enough for a header, a few records and long
# names; the seeds that are larger still run whole.
max_len=16384
# libFuzzer's memory ceiling per process, MiB: a loader that allocates by a size read from the
# file without checking it against a limit is a finding, not an out-of-memory kill.
rss_limit_mb=2048
# Seconds one input may take: every reader is linear in its input, so a slow one is a finding.
timeout=10

if [ ! -x "$build/tests/fuzz/fuzz_prf" ] || [ "${FUZZ_REBUILD:-1}" = 1 ]; then
  CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLORGEN_FUZZ=ON \
    -DLORGEN_TESTS=OFF >/dev/null
  # Only the fuzz targets: the CLI is not needed here.
  # shellcheck disable=SC2046
  cmake --build "$build" -j2 --target lg_fuzz_seeds $(printf 'fuzz_%s ' $targets) >/dev/null
fi
bin=$build/tests/fuzz

# ---- Seed corpora ------------------------------------------------------------------------------
corpus=$build/fuzz-corpus
seeds=$build/fuzz-seeds
rm -rf "$seeds" && mkdir -p "$seeds"
for t in $targets; do mkdir -p "$seeds/$t" "$corpus/$t"; done
mkdir -p "$seeds/prf" "$seeds/br" "$seeds/winidea_bin"
"$bin/lg_fuzz_seeds" "$seeds"
fx=$src/tests/fixtures
seed() { # seed TARGET FILE...
  local t=$1
  shift
  [ -d "$seeds/$t" ] && cp "$@" "$seeds/$t/"
  return 0
}
seed aprof "$fx"/aprof/*.aprof
seed callgrind "$fx"/callgrind/*.callgrind "$fx"/samples/callgrind_*
seed perf_script "$fx"/perf/*.txt "$fx"/samples/perfscript_*
seed winidea_text1 "$fx"/winidea/*.txt
seed winidea_xml "$fx"/winidea/*.xml
# The .LOR example of docs/lor-format.md (its first code block).
if [ -d "$seeds/lor" ]; then
  awk '/^```/ { n++; next } n == 1' "$src/docs/lor-format.md" >"$seeds/lor/lor-format.lor"
  # A fast region with its held bytes, stubs, a pinned function and members, then a clique.
  printf '%s\n' 'lorgen-lor 1' \
    'region .itcm_text size=1024 budget=900 bytes=96 functions=2 held=60 stubs=16' \
    '  pinned "isr entry"' '  fn hot size=64 hits=9 section=.text.hot object=a.o' \
    '  fn warm size=32 hits=3 source=b.c local' 'clique 1' '  fn main size=32 hits=1' 'cold 0' \
    >"$seeds/lor/region.lor"
fi
if [ -d "$seeds/elf" ]; then
  # The ELF fixtures of test_elfsym, as objects, as an archive and linked.
  for c in "$fx"/elf/*.c; do
    gcc -O2 -ffunction-sections -c "$c" -o "$seeds/elf/$(basename "$c" .c).o"
  done
  ar rcs "$seeds/elf/lib.a" "$seeds/elf/b.o" "$seeds/elf/c.o"
  gcc -O2 -nostdlib -static -Wl,-e,main "$seeds"/elf/{a,b,c}.o -o "$seeds/elf/linked" 2>/dev/null ||
    true
  # An Arm object, whose build attributes the reader parses (arm_attributes.c).
  if command -v arm-none-eabi-gcc >/dev/null; then
    arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -O2 -ffunction-sections -c "$fx/elf/a.c" \
      -o "$seeds/elf/a-cortex-m0plus.o"
  fi
fi
if [ -d "$seeds/arm_attributes" ] && command -v arm-none-eabi-gcc >/dev/null; then
  for cpu in cortex-m0plus cortex-m7; do
    arm-none-eabi-gcc -mcpu=$cpu -mthumb -O2 -c "$fx/elf/a.c" -o "$seeds/arm_attributes/$cpu.o"
    arm-none-eabi-objcopy -O binary --only-section=.ARM.attributes \
      "$seeds/arm_attributes/$cpu.o" "$seeds/arm_attributes/$cpu.bin"
    rm "$seeds/arm_attributes/$cpu.o"
  done
fi
if [ -d "$seeds/probe" ]; then
  # The probes see the first bytes of every kind of file.
  for t in $targets; do
    [ "$t" = probe ] && continue
    for f in "$seeds/$t"/*; do head -c 4096 "$f" >"$seeds/probe/$t-$(basename "$f")"; done
  done
fi

# ---- Fuzzing ----------------------------------------------------------------------------------
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# fuzz_one TARGET: the regression inputs, then SECONDS of fuzzing; the target's line of the table
# in BUILD_DIR/fuzz-TARGET.line, what went wrong in .problem, and 0 or 1 in .status.
fuzz_one() {
  local t=$1 artifacts=$build/fuzz-artifacts/$1 log=$build/fuzz-$1.log out=$build/fuzz-$1
  local rc=0 regressions dict execs rate last cov ft corp findings
  : >"$out.line"
  : >"$out.problem"
  rm -rf "$artifacts" && mkdir -p "$artifacts"
  # Regression inputs: every file of tests/fuzz/regressions/TARGET/ but notes (*.md).
  mapfile -t regressions < <(find "$src/tests/fuzz/regressions/$t" -type f ! -name '*.md' \
    2>/dev/null | sort)
  if [ ${#regressions[@]} -gt 0 ]; then
    if ! "$bin/fuzz_$t" -rss_limit_mb=$rss_limit_mb "${regressions[@]}" >"$log" 2>&1; then
      echo "fuzz_$t: a regression input fails again (log: $log)" >"$out.problem"
      echo 1 >"$out.status"
      return
    fi
  fi
  dict=()
  [ -f "$src/tests/fuzz/dict/$t.dict" ] && dict=(-dict="$src/tests/fuzz/dict/$t.dict")
  "$bin/fuzz_$t" "${dict[@]}" -max_total_time="$seconds" -max_len=$max_len \
    -rss_limit_mb=$rss_limit_mb -timeout=$timeout -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus/$t" "$seeds/$t" >"$log" 2>&1 || rc=$?
  execs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log" | tail -1)
  rate=$(awk '/stat::average_exec_per_sec/ { print $2 }' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  findings=$(find "$artifacts" -type f | wc -l)
  printf '%-14s %10s %8s %6s %7s %6s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
    "${ft:-?}" "${corp:-?}" "$findings" >"$out.line"
  if [ "$rc" -ne 0 ] || [ "$findings" -gt 0 ]; then
    { echo "fuzz_$t: exit $rc, findings in $artifacts (log: $log)"
      grep -E 'ERROR|SUMMARY|fuzz:' "$log" | head -5 || true; } >"$out.problem"
    echo 1 >"$out.status"
    return
  fi
  echo 0 >"$out.status"
}

for t in $targets; do rm -f "$build/fuzz-$t.status"; done
for t in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "${FUZZ_JOBS:-1}" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait

status=0
printf '%-14s %10s %8s %6s %7s %6s  %s\n' target executions exec/s cov features corpus findings >&2
for t in $targets; do
  cat "$build/fuzz-$t.line" >&2 2>/dev/null || true
done
for t in $targets; do
  cat "$build/fuzz-$t.problem" >&2 2>/dev/null || true
  [ "$(cat "$build/fuzz-$t.status" 2>/dev/null)" = 0 ] || status=1
done
exit $status
