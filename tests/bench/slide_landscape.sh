#!/usr/bin/env bash
# Benchmark tool (prints figures; not a test): how a program's instruction-cache misses depend on
# where one large function lands in the cache relative to the code laid out before it, on the
# profiled workload (TRAIN) and on the measured one (EVAL), in lorgen's default layout.
#
#   tests/bench/slide_landscape.sh [BUILD_DIR] PROGRAM FUNCTION [CACHE_SIZE] [STEP] [SHIFT]
#
# BUILD_DIR (default ./build) must hold bench-PROGRAM from a run of real_programs.sh (objects,
# probe-link, the callgrind TRAIN profiles) and BUILD_DIR/lorgen. The layout is lorgen's default
# from those profiles for a direct-mapped CACHE_SIZE (default 8192) with 32-byte lines. For every
# k = 0, STEP, 2 STEP, ... below the number of sets (STEP default 4), k lines of padding go right
# before FUNCTION's clique; the program is linked (SHIFT bytes of padding before its text, default
# 0, as real_programs.sh's SHIFTS) and both workloads run under cachegrind. The padding moves the
# function and everything after it by k lines against everything before it; nothing else changes.
#
# Prints per k the TRAIN and EVAL misses and their ratio to k = 0, then Kendall's tau between the
# two workloads over the slides, and what the slide with the fewest TRAIN misses does on EVAL: the
# most a choice of the slide made from TRAIN could get, if a model ranked slides as cachegrind
# does on TRAIN. Two cachegrind runs per slide: 64 slides of pcre2 take about 13 minutes. Runs the
# program's workloads in its work directory: do not run it beside real_programs.sh.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=./build
if [ $# -ge 3 ] && [ -d "$1" ]; then
  build=$1
  shift
fi
[ $# -ge 2 ] || {
  echo "usage: $0 [BUILD_DIR] PROGRAM FUNCTION [CACHE_SIZE] [STEP] [SHIFT]" >&2
  exit 2
}
name=$1 function=$2 size=${3:-8192} step=${4:-4} shift_bytes=${5:-0}
for v in "$size" "$step" "$shift_bytes"; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "'$v' is not a number" >&2; exit 2; }
done
[ "$step" -gt 0 ] || { echo "STEP must be at least 1" >&2; exit 2; }
build=$(cd "$build" && pwd)
work=$build/bench-$name
lorgen=$build/lorgen
[ -x "$lorgen" ] || { echo "no $lorgen: build lorgen in $build first" >&2; exit 1; }
if [ ! -x "$work/layouts/probe-link" ] || [ ! -x "$work/run-cg" ]; then
  echo "no $work from real_programs.sh: run it first" >&2
  exit 1
fi
compgen -G "$work/train-*.callgrind" >/dev/null || { echo "no callgrind profiles in $work" >&2; exit 1; }
# shellcheck source=tests/bench/i1_misses.sh
source "$root/tests/bench/i1_misses.sh"
use_bench_program "$root" "$build" "$name" eval || exit 2

out=$(mktemp -d "$build/bench-cache/slide.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$lorgen" -q --no-normalize --cache-size "$size" --ways 1 --line-size 32 "$work"/train-*.callgrind \
  "$work/layouts/probe-link" "$work"/obj/*.o --ld-script "$out/base.ld"
grep -qxF "    *(.text.$function)" "$out/base.ld" ||
  { echo "'$function' is not in lorgen's layout of $name (a hot function's symbol)" >&2; exit 1; }
# As real_programs.sh's SHIFTS: a padding section before the text, none for shift 0.
shift_args=()
if [ "$shift_bytes" -gt 0 ]; then
  write_shift_script "$shift_bytes" "$out/shift.ld"
  shift_args=("-Wl,-T,$out/shift.ld")
fi

sets=$((size / 32))
: >"$out/table"
for ((k = 0; k < sets; k += step)); do
  # The padding goes after the comment that opens the function's clique.
  awk -v fn="*(.text.$function)" -v pad=$((k * 32)) '
    { lines[NR] = $0 }
    $1 == fn && !at { at = NR }
    END {
      for (c = at; c > 0 && lines[c] !~ /^ *\/\* clique /; c--) {}
      for (i = 1; i <= NR; i++) { print lines[i]; if (i == c) printf "    . = . + %d;\n", pad }
    }' "$out/base.ld" >"$out/k.ld"
  # shellcheck disable=SC2086 # libs is words on purpose
  gcc "${shift_args[@]}" "$work"/obj/*.o $libs -Wl,-T,"$out/k.ld" -o "$out/k" 2>/dev/null
  train=$(i1_misses "$work" "${name}_train" "$out/k" "$size,1,32")
  eval_misses=$(i1_misses "$work" "${name}_eval" "$out/k" "$size,1,32")
  echo "$k $train $eval_misses" >>"$out/table"
done

python3 - "$root/tests/bench" "$out/table" "$name" "$function" "$size" "$shift_bytes" <<'EOF'
import sys
bench, path, name, function, size, shift = sys.argv[1:7]
sys.path.insert(0, bench)
from bench_report import kendall
rows = [tuple(int(x) for x in line.split()) for line in open(path)]
t0, e0 = rows[0][1], rows[0][2]
print(f"{name}: {function} slid by k lines, {size} B direct-mapped, 32-byte lines, shift {shift}")
print(f"{'k':>4} {'TRAIN':>12} {'ratio':>6} {'EVAL':>12} {'ratio':>6}")
for k, t, e in rows:
    print(f"{k:>4} {t:>12,} {t / t0:>6.3f} {e:>12,} {e / e0:>6.3f}")
tau = kendall([(t, e) for _, t, e in rows])
best_train = min(rows, key=lambda r: (r[1], r[0]))
best_eval = min(rows, key=lambda r: (r[2], r[0]))
evals = sorted(r[2] for r in rows)
if tau is not None:
    print(f"Kendall tau, TRAIN against EVAL over the slides: {tau:+.2f}")
print(f"EVAL over the slides: best {best_eval[2] / e0:.3f} (k={best_eval[0]}), median "
      f"{evals[len(evals) // 2] / e0:.3f}, worst {evals[-1] / e0:.3f} of k=0")
print(f"TRAIN's best slide k={best_train[0]}: TRAIN {best_train[1] / t0:.3f}, EVAL "
      f"{best_train[2] / e0:.3f} of k=0")
EOF
