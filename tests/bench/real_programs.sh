#!/usr/bin/env bash
# Benchmark (prints figures; not a test): instruction-cache misses of real programs built from
# Debian source packages, under several link orders made from the same TRAIN profile, against
# the targets lorgen is meant to meet.
#
#   tests/bench/real_programs.sh [--reuse] [BUILD_DIR] [PROGRAM...]
#
# PROGRAM is the name of a file tests/bench/programs/PROGRAM.sh (lua: lua5.4 running Lua
# programs; xz: xz-utils compressing and decompressing; ...); without one, all are run. BUILD_DIR
# defaults to ./build; its lorgen is used (a copy taken at the start, so that a rebuild during the
# run cannot mix two versions) and the work goes to BUILD_DIR/bench-cache and BUILD_DIR/bench-NAME.
#
# For each program:
#   - fetch its source with `apt-get source` through a private apt configuration (the system's
#     apt configuration is not touched) and build it with -O2 -ffunction-sections, objects kept;
#   - profile a TRAIN workload twice: with the example tracer (-finstrument-functions) into .prf
#     files, and with callgrind (--dump-instr --collect-jumps: lorgen's phase choice replays the
#     jumps) on the plain build ("probe-link") into .callgrind files; one file per process the
#     workload starts;
#   - link the same objects several ways and check that every layout gives the same EVAL output:
#       gnu-default       GNU ld's own order
#       lld-default       lld's own order (gcc -fuse-ld=lld)
#       lld-c3            lld's C3/hfsort fed `lorgen callgraph` of the callgrind profile
#                         (--call-graph-ordering-file)
#       classic-ph        plain Pettis-Hansen on the callgrind call counts, by an implementation
#                         independent of lorgen (tests/bench/classic_order.py)
#       classic-hot       hot-first: functions by callgrind self instructions per byte, hottest
#                         first (the same script)
#       lorgen-prf        lorgen's default fed the .prf profiles, and
#       lorgen-callgrind  fed the callgrind profiles; both built once per measured geometry with
#                         --cache-size/--line-size/--ways of that geometry, since lorgen
#                         optimizes for one cache and should be judged on the cache it was told
#     classic-ph and classic-hot put the ordered functions first (an output section inserted
#     before .text) and leave the rest in GNU ld's order, as a linker script from a classic tool
#     does. They do not use lorgen's own --algorithm pettis-hansen/hot-first, so that a bug in
#     lorgen cannot weaken the layouts it is compared with;
#   - run a different EVAL workload under cachegrind for each I1 geometry, summing the I1 misses
#     over the processes it starts, and the GNU ld default also with a fully-associative I1 of
#     the same size and line size: what is left there are capacity and compulsory misses, so
#     (gnu-default - layout) / (gnu-default - fully-associative) is the share of the conflict
#     misses a layout removes;
#   - estimate each binary's misses with `lorgen eval` (TRAIN .prf profiles, the binary's own
#     addresses) and print, per geometry, Kendall's tau between estimate and cachegrind: +1 when
#     the estimate ranks the layouts exactly as cachegrind does, 0 for no relation;
#   - print the misses and their ratio to gnu-default, the conflict share removed, the best
#     classic layout (fewest misses among lld-default, lld-c3, classic-ph, classic-hot) and
#     lorgen's ratio to it, and the seconds taken (the time per geometry goes to stderr as it
#     is measured).
# At the end it checks lorgen-prf and lorgen-callgrind (and lorgen2-*, below) against the
# targets, over the programs of this run, one line per target with PASS/FAIL and the worst case
# (tests/bench/bench_report.py summary): never worse than gnu-default anywhere (ratio <= 1.000);
# over the 4K, 8K and 16K cells, a geometric mean at most 0.95 of the strongest classic
# algorithm's (the one of lld-default, lld-c3, classic-ph and classic-hot whose own geometric
# mean is lowest) and no cell more than 1.05 of that algorithm's; at 8K direct-mapped at least
# 40% of the conflict misses removed on average over the programs; lorgen eval ranking each
# cell's layouts like cachegrind at a median Kendall tau of at least 0.6. The raw figures of this run's programs
# go to BUILD_DIR/bench-results.tsv (program, layout, geometry, misses, lorgen eval's estimate;
# rewritten after each program) and BUILD_DIR/bench-NAME/results.tsv; tests/bench/bench_report.py
# prints the tables again from them: `bench_report.py program TSV NAME`, `... summary TSV`,
# `... transfer EVAL_TSV TRAIN_TSV` (with MEASURED=train, below).
#
# Time: about 112 cachegrind runs of EVAL per program (5 layouts and lorgen's 2 at 4 geometries,
# each linked at the 4 default shifts, and 4 fully-associative runs, which cost 2 to 6 times a
# direct-mapped one). On the machine of 2026-11-27, with one fully-associative geometry, eight
# shifts took 84 minutes to measure all six programs (lua 11, xz 27) and two shifts 22, plus 3
# to build and profile from scratch: about 45 minutes for the default four. SHIFTS=0 takes a
# quarter of that, and one link can be a quarter off at 8K (pcre2; SHIFTS below).
# Options, for iterating on the optimizer:
#   --reuse (or REUSE=1)  when BUILD_DIR/bench-NAME holds the objects, probe-link and both TRAIN
#                         profiles of an earlier run of this script, skip fetch, build and
#                         profiling: only relink and measure. The profiles stay the same, so
#                         two reuse runs differ only by what changed in lorgen (and by the
#                         program's own variation: lua seeds its string hashes with the time
#                         and addresses, which moves its misses by up to about 0.3%). After
#                         changing a program's build or TRAIN workload, run without it.
#   STATIC=1              link every layout statically (-static), and give lorgen and the call
#                         graph that lld's C3 is fed the C library's archive too (libc.a): then
#                         nothing moves under the text by chance, and one shift measures a cell
#                         (use a BUILD_DIR of its own: build.env keeps the libraries).
#   GEOMETRIES="8192,1,32 ..."  the I1 geometries (size,ways,line) to measure; default
#                         4096,1,32 8192,1,32 16384,2,32 32768,8,64.
#   LAYOUTS="gnu-default lorgen-prf ..."  only these layouts (gnu-default is always measured:
#                         every ratio is to it).
#   EXTRA_LAYOUTS="cliques-noplace pettis-hansen ..."  also lorgen-NAME: lorgen fed the .prf
#                         with --algorithm NAME (NAME-noplace: with --no-place too), per geometry.
#   CDSORT=1              also classic-cdsort: the cache-directed sort lld uses by default since
#                         LLVM 18 (Debian 12's lld 14 does not have it), by classic_order.py on
#                         the callgrind call counts. Reported, not counted among the classic
#                         layouts of the targets (the issue names lld's default and C3,
#                         Pettis-Hansen and hot-first).
#   EXTRA_LORGEN=/path/to/lorgen  also lorgen2-prf and lorgen2-callgrind: another lorgen build's
#                         default, to compare two builds in one run.
#   SHIFTS="0 1024 2048 3072"  also link every layout with its code moved by each of these many
#                         bytes (a padding section inserted before the program's text) and
#                         report the mean misses over the shifts. Where a program's code lands
#                         relative to the code no layout moves (the PLT, the C library, the
#                         dynamic linker) changes the misses by a few percent at 4K to 16K and by
#                         up to half at 32K 8-way (docs/benchmarks.md, "Noise"), so one link is
#                         one draw; the mean over shifts is what a layout is worth when that
#                         relation is unknown. At 8K a shared library's pages can fall in either
#                         half of the way, which valgrind fixes and a normal start draws anew, so
#                         spread the shifts over 8 KiB, not 4. At 8K, two shifts leave a cell's
#                         ratio uncertain by 4% to over 20%, four by 2% to 10%, eight by 1% to 4%
#                         ("Where the text meets the shared libraries"; the figures of the
#                         eleventh session used "0 5056 1920 6976 3840 704 5760 2624").
#                         Default: "0 5056 1920 6976", four shifts that fall in both halves of
#                         an 8 KiB way and a quarter of a page apart (0, 960, 1920 and 2880 bytes
#                         into it); until 2026-11-27 the default was one link (0), and the
#                         recorded runs before then used "0 2752". Costs one cachegrind run per shift
#                         (the fully-associative runs are not shifted: a cache of one set does
#                         not care where the code lands). Each link's misses go to
#                         BUILD_DIR/bench-results-shifts.tsv, and with more than one shift the
#                         run ends with how far apart the shifts of lorgen's layouts were
#                         (`bench_report.py shifts`).
#   LORGEN_OPTS="--perturb 1"  options added to every lorgen layout's command line: with
#                         --perturb SEED, run the benchmark once per seed and compare the means
#                         (docs/benchmarks.md, "One profile, many layouts": one profile is one
#                         draw).
#   PROFILED=eval         profile the EVAL workload instead of TRAIN: every layout is then made
#                         from a profile of the very workload measured, which shows how far a
#                         function order can go with a perfect profile (docs/benchmarks.md, "What a
#                         profile of the measured workload itself gets"). Give it a BUILD_DIR of
#                         its own: the profiles keep their train-* names, and --reuse reuses them.
#                         Default: train.
#   MEASURED=train        measure the TRAIN workload (the one profiled) instead of EVAL, into
#                         results-train.tsv files beside the EVAL ones; when BUILD_DIR holds an
#                         EVAL run's bench-results.tsv, end with `bench_report.py transfer`: how
#                         the same links rank on both workloads, what a selector that knew TRAIN's
#                         misses exactly would pick, and how lorgen does on the run it was given
#                         (docs/benchmarks.md, "The same links on the profiled workload").
#                         Default: eval.
#   FA_GEOMETRIES="8192,256,32 ..."  the fully-associative runs; default one per geometry.
#                         8192,256,32 alone keeps the bound the targets need and saves about a
#                         fifth of the measuring time.
#
# A program is described in tests/bench/programs/NAME.sh, sourced here, by three functions:
# NAME_build WORK (objects into WORK/obj, the instrumented program as WORK/prog-prof, the link
# libraries into the variable libs, a title into the variable title), and NAME_train RUN and
# NAME_eval RUN, which run the workload with the command RUN standing for the program and print
# on stdout what every layout must reproduce. Only one cachegrind runs at a time: a workload runs
# its processes one after the other, and they may share files in WORK.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
programs=()
for f in "$root"/tests/bench/programs/*.sh; do
  programs+=("$(basename "$f" .sh)")
  # shellcheck source=/dev/null
  source "$f"
done
# shellcheck source=tests/bench/i1_misses.sh
source "$root/tests/bench/i1_misses.sh"
reuse=${REUSE:-0}
profiled=${PROFILED:-train}
case $profiled in
  train | eval) ;;
  *) echo "PROFILED: '$profiled' is not train or eval" >&2; exit 2 ;;
esac
measured=${MEASURED:-eval}
case $measured in
  eval) results_name=results ;;
  train) results_name=results-train ;;
  *) echo "MEASURED: '$measured' is not train or eval" >&2; exit 2 ;;
esac
args=()
for a in "$@"; do
  case $a in
    --reuse) reuse=1 ;;
    -*) echo "unknown option '$a'" >&2; exit 2 ;;
    *) args+=("$a") ;;
  esac
done
set -- "${args[@]}"
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
# A copy, so that a rebuild of BUILD_DIR/lorgen while this runs cannot mix two versions (or fail
# on a half-written file) in one run.
lorgen=$(mktemp "$build/bench-lorgen.XXXXXX")
trap 'rm -f "$lorgen"' EXIT
cp "$build/lorgen" "$lorgen" && chmod +x "$lorgen"
lorgen2=${EXTRA_LORGEN:-}
if [ -n "$lorgen2" ]; then
  [ -x "$lorgen2" ] || { echo "EXTRA_LORGEN: '$lorgen2' is not an executable" >&2; exit 2; }
  lorgen2=$(cd "$(dirname "$lorgen2")" && pwd)/$(basename "$lorgen2")
fi
cache=$build/bench-cache
mkdir -p "$cache"
report=(python3 "$root/tests/bench/bench_report.py")

# I1 geometries: size,ways,line.
read -r -a geometries <<<"${GEOMETRIES:-4096,1,32 8192,1,32 16384,2,32 32768,8,64}"
for g in "${geometries[@]}"; do
  [[ $g =~ ^[0-9]+,[0-9]+,[0-9]+$ ]] || { echo "GEOMETRIES: '$g' is not size,ways,line" >&2; exit 2; }
done
# The fully-associative bound of each geometry: the same size and line size, one set. (A geometry
# that is already fully associative is its own bound and is not measured twice.)
fa_of() { # GEOMETRY: its fully-associative geometry
  local size ways line
  IFS=, read -r size ways line <<<"$1"
  echo "$size,$((size / line)),$line"
}
if [ -n "${FA_GEOMETRIES+set}" ]; then
  read -r -a fa_geometries <<<"$FA_GEOMETRIES"
else
  fa_geometries=()
  for g in "${geometries[@]}"; do
    [ "$(fa_of "$g")" = "$g" ] || fa_geometries+=("$(fa_of "$g")")
  done
fi

# Layouts. The fixed ones are one binary for all geometries; lorgen's are one per geometry.
fixed_layouts=(gnu-default lld-default lld-c3 classic-ph classic-hot)
[ "${CDSORT:-0}" = 0 ] || fixed_layouts+=(classic-cdsort)
tuned_layouts=(lorgen-prf lorgen-callgrind)
for x in ${EXTRA_LAYOUTS:-}; do
  [[ $x =~ ^[a-z0-9-]+$ ]] || { echo "EXTRA_LAYOUTS: bad name '$x'" >&2; exit 2; }
  tuned_layouts+=("lorgen-$x")
done
[ -z "$lorgen2" ] || tuned_layouts+=(lorgen2-prf lorgen2-callgrind)
if [ -n "${LAYOUTS:-}" ]; then
  for l in $LAYOUTS; do
    [[ " ${fixed_layouts[*]} ${tuned_layouts[*]} " == *" $l "* ]] ||
      { echo "LAYOUTS: unknown layout '$l' (${fixed_layouts[*]} ${tuned_layouts[*]})" >&2; exit 2; }
  done
  keep() { # keeps the layouts named in LAYOUTS, and gnu-default
    local l
    for l in "$@"; do
      [[ $l == gnu-default || " $LAYOUTS " == *" $l "* ]] && echo "$l"
    done
    return 0
  }
  mapfile -t fixed_layouts < <(keep "${fixed_layouts[@]}")
  mapfile -t tuned_layouts < <(keep "${tuned_layouts[@]}")
fi
layouts=("${fixed_layouts[@]}" "${tuned_layouts[@]}")
wanted() { [[ " ${layouts[*]} " == *" $1 "* ]]; }

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
# WORK/train-NN.prf; WORK/run-cg runs $CG_BINARY under cachegrind (write_cg_runner, i1_misses.sh);
# WORK/run-callgrind runs probe-link under callgrind and gives each process its own
# WORK/train-NN.callgrind.
make_runners() {
  local work=$1
  cat >"$work/run-prof" <<EOF
#!/bin/sh
n=\$((\$(cat "$work/run-prof.count" 2>/dev/null || echo 0) + 1))
echo \$n >"$work/run-prof.count"
LGTRACE_OUT=\$(printf '%s/train-%02d.prf' "$work" \$n) exec "$work/prog-prof" "\$@"
EOF
  write_cg_runner "$work"
  cat >"$work/run-callgrind" <<EOF
#!/bin/sh
n=\$((\$(cat "$work/run-callgrind.count" 2>/dev/null || echo 0) + 1))
echo \$n >"$work/run-callgrind.count"
exec valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes --log-file=/dev/null \\
  --callgrind-out-file=\$(printf '%s/train-%02d.callgrind' "$work" \$n) \\
  "$work/layouts/probe-link" "\$@"
EOF
  chmod +x "$work/run-prof" "$work/run-callgrind"
}

# The shifts (bytes of padding before the program's text) each layout is linked with.
read -r -a shifts <<<"${SHIFTS:-0 5056 1920 6976}"
for n in "${shifts[@]}"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "SHIFTS: '$n' is not a number of bytes" >&2; exit 2; }
done

# link_binary OUT CC ARGS...: links OUT with CC ARGS, and for every nonzero shift N also
# OUT.shiftN with a padding section of N bytes put before the text. The padding script comes
# first, so that a layout's own section (inserted before .text too) follows it. A layout whose
# script aligns its code to the way size (lorgen's placement: `. = ALIGN(W);`) would absorb that
# padding and land at the same cache sets in every shifted link, one draw repeated; its shifted
# links therefore start N mod W bytes past that alignment instead, which moves all of its code
# (and what follows it) by the same amount against the code no layout moves, as the padding
# does for the other layouts, and keeps the cache sets of its functions relative to each other.
link_binary() {
  local out=$1 n a args
  shift
  "$@" -o "$out"
  for n in "${shifts[@]}"; do
    [ "$n" -gt 0 ] || continue
    write_shift_script "$n" "$out.shift$n.ld"
    args=()
    for a in "${@:2}"; do
      if [[ $a == -Wl,-T,* ]] && shift_layout_script "$n" "${a#-Wl,-T,}" "$out.shift$n.layout.ld"; then
        a=-Wl,-T,$out.shift$n.layout.ld
      fi
      args+=("$a")
    done
    "$1" -Wl,-T,"$out.shift$n.ld" "${args[@]}" -o "$out.shift$n" 2>/dev/null
  done
}

# The mean I1 misses of BINARY and its shifted links, rounded. Each link's own misses are
# appended to SHIFTS_OUT as a line "LABEL<TAB>SHIFT<TAB>MISSES", so that the report can say how
# far apart the shifts were (bench_report.py shifts).
mean_misses() { # WORK EVAL_FN BINARY GEOMETRY SHIFTS_OUT LABEL
  local n sum=0 count=0 m b
  for n in "${shifts[@]}"; do
    b=$3
    [ "$n" -gt 0 ] && b=$3.shift$n
    m=$(i1_misses "$1" "$2" "$b" "$4") || return 1
    printf '%s\t%s\t%s\n' "$6" "$n" "$m" >>"$5"
    sum=$((sum + m)) count=$((count + 1))
  done
  echo $(((sum + count / 2) / count))
}

# The binary of layout NAME measured at GEOMETRY (lorgen's layouts have one per geometry).
binary_of() { # WORK NAME GEOMETRY
  if [[ " ${fixed_layouts[*]} " == *" $2 "* ]]; then
    echo "$1/layouts/$2"
  else
    echo "$1/layouts/$2.${3//,/-}"
  fi
}

# link_layouts WORK LIBS: the layouts wanted, into WORK/layouts; linker scripts and lorgen's
# reports into WORK/scripts.
link_layouts() {
  local work=$1 libs=$2
  local objs=("$work"/obj/*.o) probe=$work/layouts/probe-link s=$work/scripts
  # What lorgen and the call graph of lld's C3 are given besides the objects: with STATIC=1 the C
  # library's archive, whose members are linked into the program too.
  local archives=()
  [ "${STATIC:-0}" = 0 ] || archives=("$(gcc -print-file-name=libc.a)")
  local prfs=("${merge[@]}" "$work"/train-*.prf) cgs=("${merge[@]}" "$work"/train-*.callgrind)
  mkdir -p "$s"
  # Exact call counts of the plain build: what lld's C3 and classic-ph are fed.
  "$lorgen" callgraph -q "${cgs[@]}" "$probe" "${objs[@]}" "${archives[@]}" -o "$s/callgrind.cg"
  link_binary "$work/layouts/gnu-default" gcc "${objs[@]}" $libs
  if wanted lld-default; then
    link_binary "$work/layouts/lld-default" gcc -fuse-ld=lld "${objs[@]}" $libs
  fi
  if wanted lld-c3; then
    link_binary "$work/layouts/lld-c3" gcc -fuse-ld=lld \
      -Wl,--call-graph-ordering-file="$s/callgrind.cg" -Wl,--no-warn-symbol-ordering \
      "${objs[@]}" $libs
  fi
  local kind
  for kind in ph hot cdsort; do
    wanted "classic-$kind" || continue
    python3 "$root/tests/bench/classic_order.py" "$kind" --callgraph "$s/callgrind.cg" \
      --elf "$probe" -o "$s/classic-$kind.ld" --callgrind "$work"/train-*.callgrind \
      --objects "${objs[@]}"
    link_binary "$work/layouts/classic-$kind" gcc "${objs[@]}" $libs -Wl,-T,"$s/classic-$kind.ld"
  done
  local l g size ways line tag bin opts profiles algorithm
  for l in "${tuned_layouts[@]}"; do
    bin=$lorgen opts=() profiles=("${prfs[@]}")
    case $l in
      lorgen-prf) ;;
      lorgen-callgrind) profiles=("${cgs[@]}") ;;
      lorgen2-prf) bin=$lorgen2 ;;
      lorgen2-callgrind) bin=$lorgen2 profiles=("${cgs[@]}") ;;
      lorgen-*) # EXTRA_LAYOUTS: ALGORITHM or ALGORITHM-noplace
        algorithm=${l#lorgen-}
        opts=(--algorithm "${algorithm%-noplace}")
        [ "$algorithm" = "${algorithm%-noplace}" ] || opts+=(--no-place) ;;
    esac
    for g in "${geometries[@]}"; do
      IFS=, read -r size ways line <<<"$g"
      tag=$l.${g//,/-}
      # shellcheck disable=SC2086 # LORGEN_OPTS is words on purpose
      "$bin" -q "${opts[@]}" ${LORGEN_OPTS:-} --cache-size "$size" --ways "$ways" --line-size "$line" \
        "${profiles[@]}" "$probe" "${objs[@]}" "${archives[@]}" --ld-script "$s/$tag.ld" \
        --report "$s/$tag.txt"
      link_binary "$(binary_of "$work" "$l" "$g")" gcc "${objs[@]}" $libs -Wl,-T,"$s/$tag.ld"
    done
  done
}

# check_outputs NAME WORK EVAL_FN: every binary to be measured gives gnu-default's EVAL output.
check_outputs() {
  local name=$1 work=$2 eval_fn=$3 reference l g b binaries=()
  for l in "${fixed_layouts[@]}"; do binaries+=("$work/layouts/$l"); done
  for l in "${tuned_layouts[@]}"; do
    for g in "${geometries[@]}"; do binaries+=("$(binary_of "$work" "$l" "$g")"); done
  done
  reference=$("$eval_fn" "$work/layouts/gnu-default" | md5sum)
  for b in "${binaries[@]}"; do
    [ "$("$eval_fn" "$b" | md5sum)" = "$reference" ] ||
      { echo "$name: layout $(basename "$b") gives a different result" >&2; exit 1; }
  done
}

# same_links A B: A and every shifted link of it are byte for byte B and B's shifted links.
same_links() {
  local n
  cmp -s "$1" "$2" || return 1
  for n in "${shifts[@]}"; do
    [ "$n" -gt 0 ] || continue
    cmp -s "$1.shift$n" "$2.shift$n" || return 1
  done
}

# measure NAME WORK EVAL_FN: cachegrind and lorgen eval for every layout and geometry, one line
# per figure into WORK/$results_name.tsv. A layout whose links are byte for byte gnu-default's
# (lorgen's safeguard kept the input order) is the input order: it gets gnu-default's figures
# instead of a measurement of its own, which could differ only by the program's own variation
# (lua seeds its hashes with the time).
measure() {
  local name=$1 work=$2 eval_fn=$3
  local prfs=("${merge[@]}" "$work"/train-*.prf) out=$work/$results_name.tsv
  local by_shift=$work/$results_name-shifts.tsv
  local g l b m est size ways line start default_m copied
  : >"$out"
  : >"$by_shift"
  for g in "${geometries[@]}"; do
    start=$SECONDS
    IFS=, read -r size ways line <<<"$g"
    for l in "${layouts[@]}"; do
      b=$(binary_of "$work" "$l" "$g")
      if [ "$l" != gnu-default ] && same_links "$b" "$work/layouts/gnu-default"; then
        # gnu-default is the first layout: its mean and its links of this geometry are known.
        m=$default_m
        copied=$(awk -v g="$g" -v l="$l" 'BEGIN { FS = OFS = "\t" }
          $2 == "gnu-default" && $3 == g { $2 = l; print }' "$by_shift")
        printf '%s\n' "$copied" >>"$by_shift"
      else
        m=$(mean_misses "$work" "$eval_fn" "$b" "$g" "$by_shift" "$name"$'\t'"$l"$'\t'"$g")
        [ "$l" = gnu-default ] && default_m=$m
      fi
      # lorgen eval's estimate of this binary's own addresses, from the TRAIN profiles merged
      # as the layouts merged them (prfs starts with the merge option).
      est=$("$lorgen" eval -q --cache-size "$size" --ways "$ways" --line-size "$line" \
        "${prfs[@]}" "$b" "$work"/obj/*.o | awk '/^ELF \(current\)/ { print $4 }')
      printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$l" "$g" "$m" "${est:--}" >>"$out"
    done
    echo "  ($name: I1=$g measured in $((SECONDS - start)) s)" >&2
  done
  for g in "${fa_geometries[@]}"; do
    start=$SECONDS
    # One set: where the code lands cannot change which lines share it, so no shifted links.
    m=$(i1_misses "$work" "$eval_fn" "$work/layouts/gnu-default" "$g")
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" gnu-default "$g" "$m" - >>"$out"
    echo "  ($name: I1=$g (fully associative) measured in $((SECONDS - start)) s)" >&2
  done
}

# tracer_objects WORK: the example tracer, built without instrumentation, to link into
# WORK/prog-prof.
tracer_objects() {
  gcc -O2 -I"$root/loaders" -I"$root/src/core" -c "$root/examples/tracer/lgtrace.c" -o "$1/lgtrace.o"
  gcc -O2 -I"$root/loaders" -I"$root/src/core" -c "$root/loaders/prf_write.c" -o "$1/prf_write.o"
}

# reusable WORK: an earlier run left what --reuse needs.
reusable() {
  local work=$1
  [ -f "$work/build.env" ] && [ -x "$work/layouts/probe-link" ] &&
    compgen -G "$work/obj/*.o" >/dev/null && compgen -G "$work/train-*.prf" >/dev/null &&
    compgen -G "$work/train-*.callgrind" >/dev/null
}

# bench_program NAME: build, profile, link and measure one program.
bench_program() {
  local name=$1 work=$build/bench-$1 libs='' start=$SECONDS t_built t_linked built=build
  title=$name # NAME_build (or build.env) names it better
  if [ "$reuse" = 1 ] && reusable "$work"; then
    echo "($name: reusing the objects and profiles in $work)" >&2
    built=reuse
    # shellcheck source=/dev/null
    source "$work/build.env"
    find "$work/layouts" -mindepth 1 ! -name probe-link -delete
    rm -rf "$work/scripts"
    make_runners "$work"
  else
    [ "$reuse" = 1 ] && echo "($name: nothing to reuse in $work: building)" >&2
    rm -rf "$work" && mkdir -p "$work/obj" "$work/prof" "$work/layouts"
    make_runners "$work"
    tracer_objects "$work"
    "${name}_build" "$work"
    # STATIC=1: every layout is a static link (the profiling build stays as NAME_build made it).
    [ "${STATIC:-0}" = 0 ] || libs="$libs -static"
    "${name}_$profiled" "$work/run-prof" >/dev/null
    gcc "$work"/obj/*.o $libs -o "$work/layouts/probe-link"
    "${name}_$profiled" "$work/run-callgrind" >/dev/null
    # What NAME_build set, for --reuse.
    printf 'libs=%q\ntitle=%q\n' "$libs" "$title" >"$work/build.env"
  fi
  t_built=$SECONDS
  link_layouts "$work" "$libs"
  check_outputs "$name" "$work" "${name}_eval"
  t_linked=$SECONDS
  measure "$name" "$work" "${name}_$measured"
  printf '\n%s (%s workload%s)\n' "$title" "$([ "$measured" = eval ] && echo EVAL || echo 'TRAIN (profiled)')" \
    "$([ "$profiled" = eval ] && echo ', profiled on EVAL')"
  "${report[@]}" program "$work/$results_name.tsv" "$name"
  printf '(%s: %d s: %d to %s, %d to link, %d to measure)\n' "$name" $((SECONDS - start)) \
    $((t_built - start)) "$([ $built = build ] && echo 'build and profile' || echo reuse)" \
    $((t_linked - t_built)) $((SECONDS - t_linked))
}

results=$build/bench-$results_name.tsv
finished=()
for p in "${selected[@]}"; do
  bench_program "$p"
  finished+=("$p")
  # Rewritten after each program, so that an interrupted run keeps the figures it has.
  { printf 'program\tlayout\tgeometry\tmisses\testimate\n'
    for q in "${finished[@]}"; do cat "$build/bench-$q/$results_name.tsv"; done; } >"$results"
  { printf 'program\tlayout\tgeometry\tshift\tmisses\n'
    for q in "${finished[@]}"; do cat "$build/bench-$q/$results_name-shifts.tsv"; done; } \
    >"${results%.tsv}-shifts.tsv"
done
if [ "$measured" = train ]; then
  # The targets are about EVAL; on TRAIN what matters is how the rankings carry over.
  if [ -f "$build/bench-results.tsv" ]; then
    printf '\nThe same links on TRAIN and on EVAL (EVAL figures from %s)\n' "$build/bench-results.tsv"
    "${report[@]}" transfer "$build/bench-results.tsv" "$results"
  fi
else
  printf '\nTargets over %s (figures in %s)\n' "${selected[*]}" "$results"
  "${report[@]}" summary "$results"
  if [ "${#shifts[@]}" -gt 1 ]; then
    printf '\nHow far apart the shifted links were (figures in %s)\n' "${results%.tsv}-shifts.tsv"
    "${report[@]}" shifts "${results%.tsv}-shifts.tsv"
  fi
fi
