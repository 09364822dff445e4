#!/usr/bin/env bash
# End to end: `lorgen check` on the README's own demo linked as docs/linkers.md says. The demo has
# two static skip_space (lex.o, calc.o) and two static mix (wordtab.o, checksum.o), all hot. gold
# (--section-ordering-file) and lld (--symbol-ordering-file) name sections or symbols only, and
# GNU ld's script names no object when lorgen had no object files, so each moves every static
# of a name to the place of the first: check must accept that, say so,
# and still fail a function that is truly out of place. It must refuse, with a clear message
# and a non-zero exit, a stripped program (no symbols to read back) and two linked programs.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work"
have ld.gold || { echo "skipping: gold is not installed" >&2; exit 77; }
have ld.lld || { echo "skipping: lld is not installed" >&2; exit 77; }
out=$work/demo

step "build and profile the demo; order it for gold and lld"
make -s -C "$src/examples/demo" OUT="$out" RUN_ARGS="-r 2 -n 100 -s 7" all run >/dev/null
cd "$out"
"$lorgen" trace.prf demo normal/*.o -o demo.lor --gold demo.gold --lld demo.lld 2>lorgen.err
for name in skip_space mix; do
  [ "$(grep -c "^  fn $name .* ambiguous" demo.lor)" -eq 2 ] ||
    fail "demo.lor does not list both static $name: the demo lost its same-named statics"
  grep -q "the static functions called '$name' move together" lorgen.err ||
    { cat lorgen.err >&2; fail "no warning that $name moves together"; }
done

# check_passes NAME [LOR]: lorgen check of LOR (demo.lor), with the objects, exits 0, and each
# second static of a name is reported as moved with the first, with the reason.
check_passes() {
  local name=$1 lor=${2:-demo.lor} status=0
  "$lorgen" check "$lor" "$name" normal/*.o >"check-$name.txt" || status=$?
  [ "$status" -eq 0 ] || { cat "check-$name.txt" >&2; fail "$name: lorgen check exited $status"; }
  for fn in skip_space mix; do
    grep -q "^together .* $fn: moved with the static '$fn' of normal/[a-z]*\.o listed before it" \
      "check-$name.txt" || { cat "check-$name.txt" >&2; fail "$name: $fn not accepted as moved together"; }
  done
  grep -q 'gold and lld name sections or symbols only' "check-$name.txt" ||
    fail "$name: check does not say why it accepted the statics"
  grep -q '^lorgen check: .* 0 did not, 2 left in place or moved with another$' "check-$name.txt" ||
    { cat "check-$name.txt" >&2; fail "$name: the summary does not count both statics as moved"; }
}

step "gold: --section-ordering-file"
gcc -fuse-ld=gold normal/*.o -Wl,--section-ordering-file,demo.gold -o demo-gold
nm -n demo-gold | awk '$3 == "skip_space"' | wc -l | grep -qx 2 || fail "demo-gold: not two skip_space"
check_passes demo-gold

step "lld: --symbol-ordering-file"
gcc -fuse-ld=lld normal/*.o -Wl,--symbol-ordering-file,demo.lld -o demo-lld
check_passes demo-lld

step "GNU ld, ordered without object files: no pattern names an object"
"$lorgen" -q trace.prf demo -o noobj.lor --ld-script noobj.ld
gcc normal/*.o -Wl,-T,noobj.ld -o demo-noobj
check_passes demo-noobj noobj.lor

step "a function truly out of place still fails"
# lex_next and both mix go to the end of gold's list: each lands after the rest of the order.
grep -v -x -e .text.lex_next -e .text.mix demo.gold >moved.gold
printf '%s\n' .text.lex_next .text.mix >>moved.gold
gcc -fuse-ld=gold normal/*.o -Wl,--section-ordering-file,moved.gold -o demo-moved
status=0
"$lorgen" check demo.lor demo-moved normal/*.o >check-moved.txt || status=$?
[ "$status" -eq 3 ] || { cat check-moved.txt >&2; fail "demo-moved: lorgen check exited $status, expected 3"; }
grep -q '^elsewhere .* lex_next: out of sequence' check-moved.txt ||
  { cat check-moved.txt >&2; fail "demo-moved: lex_next not reported elsewhere"; }
[ "$(grep -c '^elsewhere .* mix: ' check-moved.txt)" -eq 2 ] ||
  { cat check-moved.txt >&2; fail "demo-moved: both mix, moved together to the end, must fail"; }

step "a stripped program: refused, with the reason"
strip -o demo-stripped demo-gold
for objs in "" "normal/*.o"; do
  status=0
  # shellcheck disable=SC2086 # the objects' glob is meant to expand
  "$lorgen" check demo.lor demo-stripped $objs >check-stripped.txt 2>check-stripped.err || status=$?
  [ "$status" -eq 1 ] || { cat check-stripped.err >&2; fail "stripped ($objs): exit $status, expected 1"; }
  grep -q "demo-stripped: error: the relinked program has no symbol table (stripped)" \
    check-stripped.err || { cat check-stripped.err >&2; fail "stripped ($objs): no clear message"; }
  [ ! -s check-stripped.txt ] || fail "stripped ($objs): rows were printed"
done

step "two linked programs: refused"
status=0
"$lorgen" check demo.lor demo-gold demo-lld normal/*.o >check-two.txt 2>check-two.err || status=$?
[ "$status" -eq 1 ] || { cat check-two.err >&2; fail "two programs: exit $status, expected 1"; }
grep -q "error: check: expected one relinked program, found 2: demo-gold and demo-lld" check-two.err ||
  { cat check-two.err >&2; fail "two programs: no clear message"; }
[ ! -s check-two.txt ] || fail "two programs: rows were printed"
echo "check_links: ok" >&2
