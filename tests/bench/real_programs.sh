#!/usr/bin/env bash
# Benchmark (prints figures; not a test): instruction-cache misses of real programs built from
# Debian source packages, under several link orders made from the same profile.
#
#   tests/bench/real_programs.sh [BUILD_DIR]
#
# For each program:
#   - fetch its source with `apt-get source` through a private apt configuration (the system's
#     apt configuration is not touched) and build it with -O2 -ffunction-sections, objects kept;
#   - profile a TRAIN workload with the example tracer (-finstrument-functions) into a .prf;
#   - link the same objects several ways (GNU ld default; lld default; lld fed lorgen's call
#     graph, i.e. lld's C3/hfsort; lorgen with each --algorithm) and check that every layout
#     prints the same;
#   - run a different EVAL workload under cachegrind for each I1 geometry and print the misses
#     and their ratio to the GNU ld default;
#   - estimate each layout's misses with `lorgen eval` (TRAIN profile, the binary's own
#     addresses) and print, per geometry, Kendall's tau between estimate and cachegrind: +1 when
#     the estimate ranks the layouts exactly as cachegrind does, 0 for no relation.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
cmake --build "$build" --target lorgen >/dev/null
lorgen=$build/lorgen
cache=$build/bench-cache
mkdir -p "$cache"

# I1 geometries: size,ways,line. The last is the fully-associative bound for 8 KiB.
geometries=(4096,1,32 8192,1,32 16384,2,32 32768,8,64 8192,256,32)

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

i1_misses() { # BINARY GEOMETRY ARGS...
  local binary=$1 geometry=$2
  shift 2
  valgrind --tool=cachegrind --cache-sim=yes --I1="$geometry" --D1=32768,8,64 \
    --LL=8388608,16,64 --cachegrind-out-file=/dev/null "$binary" "$@" 2>&1 >/dev/null |
    awk '/I1  misses:/ { gsub(",", "", $4); print $4 }'
}

# measure NAME WORKDIR EVAL_ARGS...: prints the table for the layouts built in WORKDIR/layouts.
measure() {
  local name=$1 work=$2
  shift 2
  local layouts=(gnu-default lld-default lld-c3 lorgen-c3 lorgen-pettis-hansen lorgen-hot-first
                 lorgen-cliques-noplace lorgen-cliques)
  local reference
  reference=$("$work/layouts/gnu-default" "$@" | md5sum)
  for l in "${layouts[@]}"; do
    [ "$("$work/layouts/$l" "$@" | md5sum)" = "$reference" ] ||
      { echo "$name: layout $l prints a different result" >&2; exit 1; }
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
      m=$(i1_misses "$work/layouts/$l" "$g" "$@")
      [ "$l" = gnu-default ] && base[$g]=$m
      printf '%22s' "$m ($(awk -v a="$m" -v b="${base[$g]}" 'BEGIN { printf "%.2f", b ? a / b : 0 }'))"
      # lorgen eval's estimate of this binary's own addresses, from the TRAIN profile.
      IFS=, read -r size ways line <<<"$g"
      est=$("$lorgen" eval -q --cache-size "$size" --ways "$ways" --line-size "$line" \
        "$work/train.prf" "$work/layouts/$l" "$work"/obj/*.o | awk '/^ELF \(current\)/ { print $4 }')
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

# link_layouts WORKDIR OBJECTS_GLOB LIBS: the layouts from WORKDIR/train.prf.
link_layouts() {
  local work=$1 libs=$2
  local objs=("$work"/obj/*.o)
  mkdir -p "$work/layouts"
  "$lorgen" -q "$work/train.prf" "$work/layouts/probe-link" "${objs[@]}" \
    -o "$work/lorgen.lor" --ld-script "$work/lorgen.ld" --report "$work/lorgen.txt"
  "$lorgen" callgraph -q "$work/train.prf" "$work/layouts/probe-link" "${objs[@]}" \
    -o "$work/lorgen.cg"
  gcc "${objs[@]}" $libs -o "$work/layouts/gnu-default"
  gcc -fuse-ld=lld "${objs[@]}" $libs -o "$work/layouts/lld-default"
  gcc -fuse-ld=lld -Wl,--call-graph-ordering-file="$work/lorgen.cg" -Wl,--no-warn-symbol-ordering \
    "${objs[@]}" $libs -o "$work/layouts/lld-c3"
  "$lorgen" -q --no-place "$work/train.prf" "$work/layouts/probe-link" "${objs[@]}" \
    --ld-script "$work/lorgen-cliques-noplace.ld"
  gcc "${objs[@]}" $libs -Wl,-T,"$work/lorgen-cliques-noplace.ld" \
    -o "$work/layouts/lorgen-cliques-noplace"
  for algorithm in cliques c3 pettis-hansen hot-first; do
    "$lorgen" -q --algorithm "$algorithm" "$work/train.prf" "$work/layouts/probe-link" \
      "${objs[@]}" --ld-script "$work/lorgen-$algorithm.ld"
    gcc "${objs[@]}" $libs -Wl,-T,"$work/lorgen-$algorithm.ld" \
      -o "$work/layouts/lorgen-$algorithm"
  done
}

# ---- lua5.4 -----------------------------------------------------------------------------------
lua_bench() {
  local work=$build/bench-lua src=$cache/lua5.4
  fetch_source lua5.4 "$src"
  rm -rf "$work" && mkdir -p "$work/obj" "$work/prof" "$work/layouts" "$work/inc"
  # Debian's patches include a header its build generates.
  echo "#define DEB_HOST_MULTIARCH \"$(gcc -dumpmachine)\"" >"$work/inc/lua5.4-deb-multiarch.h"
  local cflags="-O2 -ffunction-sections -DLUA_USE_POSIX -DLUA_USE_DLOPEN -I$src/src -I$work/inc"
  for f in "$src"/src/*.c; do
    case $(basename "$f") in luac.c) continue ;; esac
    gcc $cflags -c "$f" -o "$work/obj/$(basename "${f%.c}").o"
    gcc $cflags -finstrument-functions -c "$f" -o "$work/prof/$(basename "${f%.c}").o"
  done
  gcc -O2 -I"$root/loaders" -I"$root/src" -c "$root/examples/tracer/lgtrace.c" -o "$work/lgtrace.o"
  gcc -O2 -I"$root/loaders" -I"$root/src" -c "$root/loaders/prf_write.c" -o "$work/prf_write.o"
  gcc "$work"/prof/*.o "$work/lgtrace.o" "$work/prf_write.o" -lm -ldl -o "$work/lua-prof"
  LGTRACE_OUT="$work/train.prf" "$work/lua-prof" "$root/tests/bench/lua/train.lua" >/dev/null
  gcc "$work"/obj/*.o -lm -ldl -o "$work/layouts/probe-link"
  link_layouts "$work" "-lm -ldl"
  measure "lua5.4 $(basename "$(ls "$cache"/src/lua5.4_*.dsc | head -1)" .dsc)" "$work" \
    "$root/tests/bench/lua/eval.lua"
}

lua_bench
