#!/usr/bin/env bash
# End to end: `lorgen script` names each object the way the link is given it. The demo's .LOR is
# written with the objects as normal/*.o; the GNU ld script is then written from it with the
# objects given as ./normal/*.o, by absolute path, and from the parent directory, and the demo is
# linked from the objects spelled that way. Each link must take every function in order (lorgen
# check, exit 0): a file pattern built from the .LOR's object= text (:normal/lex.o) would match
# none of those spellings (docs/lor-format.md, "object= and the objects given").
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work"
out=$work/demo

step "build and profile the demo; its .LOR names normal/lex.o"
make -s -C "$src/examples/demo" OUT="$out" RUN_ARGS="-r 2 -n 100 -s 7" all run >/dev/null
cd "$out"
"$lorgen" -q trace.prf demo normal/*.o -o demo.lor
grep -q '^  fn skip_space .*object=normal/lex.o' demo.lor ||
  fail "demo.lor does not name skip_space of normal/lex.o: the demo lost its same-named statics"

# check_link NAME SCRIPT OBJECT...: links the objects, spelled as given, with SCRIPT into NAME;
# the demo must print as before, and lorgen check must find every function in order.
check_link() {
  local name=$1 script=$2
  shift 2
  gcc "$@" -Wl,-T,"$script" -o "$name"
  ./"$name" -r 2 -n 100 -s 7 >"$name.out"
  cmp -s demo-prof.out "$name.out" || fail "$name prints differently from the profiled demo"
  "$lorgen" check demo.lor "$name" "$@" >"check-$name.txt" ||
    { cat "check-$name.txt" >&2; fail "$name: lorgen check says the order did not take effect"; }
  grep -q '^lorgen check: 4[0-9] of 4[0-9] functions landed in the asked order, 0 did not' \
    "check-$name.txt" || { cat "check-$name.txt" >&2; fail "$name: not every function in order"; }
}

step "objects given as ./normal/*.o"
"$lorgen" -q script demo.lor ./demo ./normal/*.o --ld-script dot.ld
grep -qF ':*lex.o(.text.skip_space)' dot.ld ||
  { cat dot.ld >&2; fail "dot.ld: the pattern for skip_space does not match ./normal/lex.o"; }
! grep -qF ':normal/' dot.ld || fail "dot.ld names objects by the .LOR's text, not as given"
check_link demo-dot dot.ld ./normal/*.o

step "objects given by absolute path"
"$lorgen" -q script demo.lor "$out/demo" "$out"/normal/*.o --ld-script abs.ld
! grep -qF ':normal/' abs.ld || fail "abs.ld names objects by the .LOR's text, not as given"
check_link demo-abs abs.ld "$out"/normal/*.o

step "from the parent directory"
(cd .. && "$lorgen" -q script demo/demo.lor demo/demo demo/normal/*.o --ld-script demo/up.ld)
! grep -qF ':normal/' up.ld || fail "up.ld names objects by the .LOR's text, not as given"
(cd .. && gcc demo/normal/*.o -Wl,-T,demo/up.ld -o demo/demo-up)
./demo-up -r 2 -n 100 -s 7 >demo-up.out
cmp -s demo-prof.out demo-up.out || fail "demo-up prints differently from the profiled demo"
"$lorgen" check demo.lor demo-up normal/*.o >check-demo-up.txt ||
  { cat check-demo-up.txt >&2; fail "demo-up: lorgen check says the order did not take effect"; }

step "the same objects, however spelled, give the same script"
cmp dot.ld abs.ld || fail "./normal/*.o and absolute paths give different scripts"
cmp dot.ld up.ld || fail "./normal/*.o and demo/normal/*.o give different scripts"
echo "object_paths: ok" >&2
