#!/usr/bin/env bash
# Benchmark (prints figures; not a test): instruction-cache misses of real programs built from
# Debian source packages, under several link orders made from the same profile.
#
#   tests/bench/real_programs.sh [BUILD_DIR] [PROGRAM...]
#
# PROGRAM is the name of a file tests/bench/programs/PROGRAM.sh (lua: lua5.4 running Lua
# programs; xz: xz-utils compressing and decompressing; ...); without one, all are run. BUILD_DIR defaults to
# ./build; its lorgen is used and the work goes to BUILD_DIR/bench-cache and BUILD_DIR/bench-NAME.
#
# For each program:
#   - fetch its source with `apt-get source` through a private apt configuration (the system's
#     apt configuration is not touched) and build it with -O2 -ffunction-sections, objects kept;
#   - profile a TRAIN workload with the example tracer (-finstrument-functions) into .prf files,
#     one per process the workload starts;
#   - link the same objects several ways (GNU ld default; lld default; lld fed lorgen's call
#     graph, i.e. lld's C3/hfsort; lorgen with each --algorithm) and check that every layout
#     gives the same EVAL output;
#   - run a different EVAL workload under cachegrind for each I1 geometry and print the misses
#     (summed over the processes the workload starts) and their ratio to the GNU ld default;
#   - estimate each layout's misses with `lorgen eval` (TRAIN profiles, the binary's own
#     addresses) and print, per geometry, Kendall's tau between estimate and cachegrind: +1 when
#     the estimate ranks the layouts exactly as cachegrind does, 0 for no relation.
#
# A program is described in tests/bench/programs/NAME.sh, sourced here, by three functions:
# NAME_build WORK (objects into WORK/obj, the
# instrumented program as WORK/prog-prof, the link libraries into the variable libs), and
# NAME_train RUN and NAME_eval RUN, which run the workload with the command RUN standing for the
# program and print on stdout what every layout must reproduce. Only one cachegrind runs at a
# time: a workload runs its processes one after the other.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
programs=()
for f in "$root"/tests/bench/programs/*.sh; do
  programs+=("$(basename "$f" .sh)")
  # shellcheck source=/dev/null
  source "$f"
done
build_arg=$root/build
if [ $# -gt 0 ] && ! [[ " ${programs[*]} " == *" $1 "* ]]; then
  build_arg=$1
  shift
fi
build=$(cd "$build_arg" && pwd)
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${programs[@]}")
for p in "${selected[@]}"; do
  [[ " ${programs[*]} " == *" $p "* ]] || { echo "unknown program '$p' (${programs[*]})" >&2; exit 2; }
done
cmake --build "$build" --target lorgen >/dev/null
lorgen=$build/lorgen
cache=$build/bench-cache
mkdir -p "$cache"

# I1 geometries: size,ways,line. The last is the fully-associative bound for 8 KiB.
geometries=(4096,1,32 8192,1,32 16384,2,32 32768,8,64 8192,256,32)

# The TRAIN profiles of a program (one per process) are parts of one workload: merge them as
# read, not scaled to the same volume.
merge=(--no-normalize)

apt_private=(-o Dir::Etc::SourceList="$cache/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o Dir::State::Lists="$cache/lists")

fetch_source() { # PACKAGE DIR
  local package=$1 dir=$2
  [ -d "$dir" ] && return 0
  mkdir -p "$cache/lists/partial" "$cache/src"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
    "http://deb.debian.org/debian bookworm main" >"$cache/sources.list"
  apt-get "${apt_private[@]}" update >/dev/null
  (cd "$cache/src" && apt-get "${apt_private[@]}" source --download-only "$package" >/dev/null 2>&1)
  dpkg-source -x "$(ls "$cache/src/${package}"_*.dsc | head -1)" "$dir" >/dev/null 2>&1
}

debian_version() { # PACKAGE: e.g. "xz-utils_5.4.1-1+deb12u1"
  basename "$(ls "$cache/src/$1"_*.dsc | head -1)" .dsc
}

# make_runners WORK: WORK/run-prof runs WORK/prog-prof and gives each process its own
# WORK/train-NN.prf; WORK/run-cg runs $CG_BINARY under cachegrind with I1=$CG_GEOMETRY and
# appends the process's I1 misses to WORK/cg.sum.
make_runners() {
  local work=$1
  cat >"$work/run-prof" <<EOF
#!/bin/sh
n=\$((\$(cat "$work/run-prof.count" 2>/dev/null || echo 0) + 1))
echo \$n >"$work/run-prof.count"
LGTRACE_OUT=\$(printf '%s/train-%02d.prf' "$work" \$n) exec "$work/prog-prof" "\$@"
EOF
  cat >"$work/run-cg" <<EOF
#!/bin/sh
rm -f "$work/cg.log"
valgrind --tool=cachegrind --cache-sim=yes --I1="\$CG_GEOMETRY" --D1=32768,8,64 \\
  --LL=8388608,16,64 --cachegrind-out-file=/dev/null --log-file="$work/cg.log" "\$CG_BINARY" "\$@"
rc=\$?
awk '/I1  misses:/ { gsub(",", "", \$4); print \$4 }' "$work/cg.log" >>"$work/cg.sum"
exit \$rc
EOF
  cat >"$work/run-callgrind" <<EOF
#!/bin/sh
n=\$((\$(cat "$work/run-callgrind.count" 2>/dev/null || echo 0) + 1))
echo \$n >"$work/run-callgrind.count"
exec valgrind --tool=callgrind --dump-instr=yes --log-file=/dev/null \\
  --callgrind-out-file=\$(printf '%s/train-%02d.callgrind' "$work" \$n) \\
  "$work/layouts/probe-link" "\$@"
EOF
  chmod +x "$work/run-prof" "$work/run-cg" "$work/run-callgrind"
}

i1_misses() { # WORK EVAL_FN BINARY GEOMETRY
  local work=$1 eval_fn=$2
  : >"$work/cg.sum"
  (export CG_BINARY=$3 CG_GEOMETRY=$4; "$eval_fn" "$work/run-cg" >/dev/null)
  awk '{ s += $1 } END { if (NR == 0) exit 1; print s }' "$work/cg.sum" ||
    { echo "no cachegrind summary for $3 at $4" >&2; return 1; }
}

# measure NAME WORKDIR EVAL_FN: prints the table for the layouts built in WORKDIR/layouts.
measure() {
  local name=$1 work=$2 eval_fn=$3
  local layouts=(gnu-default lld-default lld-c3 lorgen-c3 lorgen-pettis-hansen lorgen-hot-first
                 lorgen-cliques-noplace lorgen-cliques lld-c3-callgrind lorgen-callgrind)
  local prfs=("${merge[@]}" "$work"/train-*.prf)
  local reference
  reference=$("$eval_fn" "$work/layouts/gnu-default" | md5sum)
  for l in "${layouts[@]}"; do
    [ "$("$eval_fn" "$work/layouts/$l" | md5sum)" = "$reference" ] ||
      { echo "$name: layout $l gives a different result" >&2; exit 1; }
  done
  printf '\n%s (EVAL workload; I1 misses, and ratio to the GNU ld default)\n' "$name"
  printf '%-16s' layout
  for g in "${geometries[@]}"; do printf '%22s' "I1=$g"; done
  printf '\n'
  declare -A base
  : >"$work/pairs.txt"
  for l in "${layouts[@]}"; do
    printf '%-16s' "$l"
    for g in "${geometries[@]}"; do
      local m est
      m=$(i1_misses "$work" "$eval_fn" "$work/layouts/$l" "$g")
      [ "$l" = gnu-default ] && base[$g]=$m
      printf '%22s' "$m ($(awk -v a="$m" -v b="${base[$g]}" 'BEGIN { printf "%.2f", b ? a / b : 0 }'))"
      # lorgen eval's estimate of this binary's own addresses, from the TRAIN profiles.
      IFS=, read -r size ways line <<<"$g"
      est=$("$lorgen" eval -q --cache-size "$size" --ways "$ways" --line-size "$line" \
        "${prfs[@]}" "$work/layouts/$l" "$work"/obj/*.o | awk '/^ELF \(current\)/ { print $4 }')
      echo "$g $l $m $est" >>"$work/pairs.txt"
    done
    printf '\n'
  done
  # Kendall's tau between the estimate and cachegrind, per geometry, over the layouts.
  printf '%-16s' "eval vs cachegrind (tau)"
  for g in "${geometries[@]}"; do
    printf '%22s' "$(awk -v g="$g" '$1 == g { m[n] = $3; e[n] = $4; n++ }
      END {
        c = 0; d = 0
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) {
          s = (m[i] - m[j]) * (e[i] - e[j])
          if (s > 0) c++; else if (s < 0) d++
        }
        printf "%+.2f", (c + d) ? (c - d) / (c + d) : 0
      }' "$work/pairs.txt")"
  done
  printf '\n'
}

# link_layouts WORKDIR LIBS: the layouts from WORKDIR/train-*.prf.
link_layouts() {
  local work=$1 libs=$2
  local objs=("$work"/obj/*.o) prfs=("${merge[@]}" "$work"/train-*.prf)
  mkdir -p "$work/layouts"
  "$lorgen" -q "${prfs[@]}" "$work/layouts/probe-link" "${objs[@]}" \
    -o "$work/lorgen.lor" --ld-script "$work/lorgen.ld" --report "$work/lorgen.txt"
  "$lorgen" callgraph -q "${prfs[@]}" "$work/layouts/probe-link" "${objs[@]}" \
    -o "$work/lorgen.cg"
  gcc "${objs[@]}" $libs -o "$work/layouts/gnu-default"
  gcc -fuse-ld=lld "${objs[@]}" $libs -o "$work/layouts/lld-default"
  gcc -fuse-ld=lld -Wl,--call-graph-ordering-file="$work/lorgen.cg" -Wl,--no-warn-symbol-ordering \
    "${objs[@]}" $libs -o "$work/layouts/lld-c3"
  "$lorgen" -q --no-place "${prfs[@]}" "$work/layouts/probe-link" "${objs[@]}" \
    --ld-script "$work/lorgen-cliques-noplace.ld"
  gcc "${objs[@]}" $libs -Wl,-T,"$work/lorgen-cliques-noplace.ld" \
    -o "$work/layouts/lorgen-cliques-noplace"
  # The default algorithm fed the callgrind profile of the same TRAIN workload instead: exact
  # call counts of the plain build, and instruction positions (the hot lines of large functions).
  "$lorgen" -q "${merge[@]}" "$work"/train-*.callgrind "$work/layouts/probe-link" "${objs[@]}" \
    --ld-script "$work/lorgen-callgrind.ld"
  gcc "${objs[@]}" $libs -Wl,-T,"$work/lorgen-callgrind.ld" -o "$work/layouts/lorgen-callgrind"
  # lld's C3 fed the same callgrind profile, for a fair comparison with lorgen-callgrind.
  "$lorgen" callgraph -q "${merge[@]}" "$work"/train-*.callgrind "$work/layouts/probe-link" \
    "${objs[@]}" -o "$work/lorgen-callgrind.cg"
  gcc -fuse-ld=lld -Wl,--call-graph-ordering-file="$work/lorgen-callgrind.cg" \
    -Wl,--no-warn-symbol-ordering "${objs[@]}" $libs -o "$work/layouts/lld-c3-callgrind"
  for algorithm in cliques c3 pettis-hansen hot-first; do
    "$lorgen" -q --algorithm "$algorithm" "${prfs[@]}" "$work/layouts/probe-link" \
      "${objs[@]}" --ld-script "$work/lorgen-$algorithm.ld"
    gcc "${objs[@]}" $libs -Wl,-T,"$work/lorgen-$algorithm.ld" \
      -o "$work/layouts/lorgen-$algorithm"
  done
}

# tracer_objects WORK: the example tracer, built without instrumentation, to link into
# WORK/prog-prof.
tracer_objects() {
  gcc -O2 -I"$root/loaders" -I"$root/src" -c "$root/examples/tracer/lgtrace.c" -o "$1/lgtrace.o"
  gcc -O2 -I"$root/loaders" -I"$root/src" -c "$root/loaders/prf_write.c" -o "$1/prf_write.o"
}

# bench_program NAME: build, profile, link and measure one program.
bench_program() {
  local name=$1 work=$build/bench-$1 libs= start=$SECONDS
  rm -rf "$work" && mkdir -p "$work/obj" "$work/prof" "$work/layouts"
  make_runners "$work"
  tracer_objects "$work"
  "${name}_build" "$work"
  "${name}_train" "$work/run-prof" >/dev/null
  gcc "$work"/obj/*.o $libs -o "$work/layouts/probe-link"
  "${name}_train" "$work/run-callgrind" >/dev/null
  link_layouts "$work" "$libs"
  measure "$title" "$work" "${name}_eval"
  printf '(%s: %d s to build, profile, link and measure)\n' "$name" $((SECONDS - start))
}

for p in "${selected[@]}"; do
  bench_program "$p"
done
