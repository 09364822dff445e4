#!/usr/bin/env bash
# End to end: the example tracer and inlining. GCC's -finstrument-functions instruments functions
# before inlining, so a static function inlined into its only caller is still reported as called,
# though the plain build has no such function: the tracer must say so on stderr. clang's
# -finstrument-functions-after-inlining records only the calls that remain, and its profile
# binds entirely to the plain clang build (examples/tracer/README.md, "Inlining").
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work" && cd "$work"

cat >hot.c <<'EOF'
volatile unsigned sink;

/* Static, with one caller: inlined there, and no copy of its own is left. */
static unsigned mix(unsigned x)
{
    return (x * 2654435761u) ^ (x >> 7);
}

unsigned hot_loop(unsigned n)
{
    unsigned acc = 0;
    for (unsigned i = 0; i < n; i++)
        acc += mix(i + sink);
    return acc;
}
EOF
cat >main.c <<'EOF'
#include <stdio.h>

unsigned hot_loop(unsigned n);

int main(void)
{
    printf("%u\n", hot_loop(100000));
    return 0;
}
EOF

# trace CC FLAG: builds the plain program plain-CC and the instrumented CC-prof (FLAG), runs
# CC-prof with LGTRACE_OUT=CC.prf (stderr in CC.err) and orders plain-CC from that profile.
trace() {
  local cc=$1 flag=$2 f
  mkdir -p "obj-$cc" "prof-$cc"
  for f in hot main; do
    "$cc" -O2 -ffunction-sections -c "$f.c" -o "obj-$cc/$f.o"
    "$cc" -O2 -ffunction-sections "$flag" -c "$f.c" -o "prof-$cc/$f.o"
  done
  "$cc" "obj-$cc"/*.o -o "plain-$cc"
  nm "plain-$cc" | grep -qw mix && fail "plain-$cc has mix out of line: the fixture shows no inlining"
  # shellcheck disable=SC2086 # $tracer is two objects
  "$cc" "prof-$cc"/*.o $tracer -o "$cc-prof"
  local status=0
  LGTRACE_OUT=$cc.prf "./$cc-prof" >"$cc.out" 2>"$cc.err" || status=$?
  cat "$cc.err" >&2
  [ "$status" -eq 0 ] || fail "$cc-prof: exit $status"
  "./plain-$cc" | cmp -s - "$cc.out" || fail "$cc-prof prints another result than plain-$cc"
  "$lorgen" "$cc.prf" "plain-$cc" "obj-$cc"/*.o -o "$cc.lor" --report "$cc.txt" 2>"$cc.lorgen.err"
}

# unbound NAME: the report's count of profiled functions left unbound.
unbound() {
  awk '/profiled functions unbound/ { print $NF }' "$1.txt"
}

tracer=$(build_tracer gcc tracer "$src")

step "gcc -finstrument-functions: the inlined calls are reported, and the tracer says so"
trace gcc -finstrument-functions
grep -q "note: 100000 of 100002 calls (99.9%) went to functions the compiler inlined" gcc.err ||
  fail "the tracer does not say that 100000 of the 100002 calls it recorded were inlined"
[ "$(unbound gcc)" = 1 ] || fail "lorgen should leave mix unbound, report says '$(unbound gcc)'"

if ! have clang; then
  echo "clang is not installed: its -finstrument-functions-after-inlining is not checked" >&2
  exit 77
fi
step "clang -finstrument-functions-after-inlining: only the calls left; all of them bind"
trace clang -finstrument-functions-after-inlining
grep -q "inlined" clang.err && fail "the tracer reports inlined calls from an after-inlining build"
[ "$(unbound clang)" = 0 ] || fail "the clang profile leaves $(unbound clang) functions unbound"
grep -q "fn hot_loop .*hits=1 " clang.lor || { cat clang.lor >&2; fail "hot_loop is not ordered"; }
