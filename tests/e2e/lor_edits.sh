#!/usr/bin/env bash
# End to end: hand edits of a real .LOR that would break the link are errors naming the line
# (exit 1, nothing written), and an edit that moves cliques off the cache offsets placement chose
# is said, with both offsets (docs/lor-format.md, "What lorgen script checks").
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/fw
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# expect STATUS EXACT_STDERR -- lorgen arguments...: the exit status and every line of stderr.
expect() {
  local want=$1 message=$2
  shift 3
  local status=0
  "$lorgen" "$@" >out.txt 2>err.txt || status=$?
  [ "$status" -eq "$want" ] || { cat err.txt >&2; fail "lorgen $*: exit $status, expected $want"; }
  [ "$(cat err.txt)" = "$message" ] ||
    { diff <(printf '%s\n' "$message") err.txt >&2 || true; fail "lorgen $*: not the expected message"; }
}

step "a small program, profiled, ordered for a 256-byte cache (several placed cliques)"
# Profiled by callgrind, whose counts do not vary between runs: the placement, and so the
# offsets the messages below name, must not depend on the machine's timing.
objs=""
for f in sensor control comms faults run host_main; do
  gcc -O2 -ffunction-sections -I"$fw" -c "$fw/$f.c" -o "$f.o"
  objs="$objs $f.o"
done
gcc $objs -o fw
valgrind --tool=callgrind --callgrind-out-file=fw.callgrind ./fw >/dev/null 2>vg.err ||
  fail "the test program failed under callgrind: $(cat vg.err)"
# The cliques pass, whose placement writes the section alignment the edits must keep.
"$lorgen" -q --algorithm cliques --cache-size 256 fw.callgrind fw $objs -o fw.lor
grep -q '^section align=256$' fw.lor || fail "no cache-aware placement in fw.lor"
grep -q '^  fn mix .*object=sensor.o' fw.lor || fail "fw.lor lists no mix of sensor.o"
expect 0 "" -- script fw.lor fw $objs --ld-script fw.ld

line_of() { # PATTERN FILE: the first line number matching
  grep -n -- "$1" "$2" | head -1 | cut -d: -f1
}

step "a static put in another object: an error, not a pattern that matches nothing"
sed 's/^\(  fn mix .*\)object=sensor\.o/\1object=comms.o/' fw.lor >moved.lor
n=$(line_of 'object=comms.o source=sensor.c' moved.lor)
expect 1 "lorgen: moved.lor:$n: error: expected function 'mix' in object comms.o, found it in sensor.o (and 1 other file): correct object= (a linker pattern for comms.o would match nothing)
lorgen: moved.lor: error: 1 function(s) named in the .LOR are not in the ELF inputs, or not in the file it says" \
  -- script moved.lor fw $objs --ld-script moved.ld
[ ! -e moved.ld ] || fail "a script was written for a static in the wrong object"

step "an object that is not among the inputs"
sed 's/^\(  fn comms_crc .*\)object=comms\.o/\1object=comms2.o/' fw.lor >gone.lor
n=$(line_of 'object=comms2.o' gone.lor)
expect 1 "lorgen: gone.lor:$n: error: expected object=comms2.o among the ELF inputs, found no such object file: give it, or correct object=
lorgen: gone.lor: error: 1 function(s) named in the .LOR are not in the ELF inputs, or not in the file it says" \
  -- script gone.lor fw $objs --ld-script gone.ld
[ ! -e gone.ld ] || fail "a script was written for an object that is not among the inputs"

step "a typo in a keyword drops no function: an error"
sed 's/^  fn comms_crc /  fnn comms_crc /' fw.lor >typo.lor
n=$(line_of '^  fnn ' typo.lor)
expect 1 "lorgen: typo.lor:$n: error: expected a statement (lorgen-lor, cache, algorithm, input, section, clique, fn, cold), found 'fnn'" \
  -- script typo.lor fw $objs --ld-script typo.ld
[ ! -e typo.ld ] || fail "a script was written for a .LOR with a typo"

step "a deleted line: functions= disagrees, and the next clique is off its cache offset"
grep -v '^  fn comms_put ' fw.lor >deleted.lor
c1=$(line_of '^clique 1 ' deleted.lor)
c2=$(line_of '^clique 2 ' deleted.lor)
expect 0 "lorgen: deleted.lor:$c1: warning: expected 4 fn lines in clique 1 (functions=4), found 3: a line was added, deleted or moved (correct functions= if that was meant)
lorgen: deleted.lor:$c2: note: clique 2 now starts at cache offset 240, placement chose 0: the code before it is 16 bytes shorter than when it was placed (an edit, or sizes that changed), which moves every later clique too; rerun lorgen to place them again" \
  -- script deleted.lor fw $objs --ld-script deleted.ld
[ -s deleted.ld ] || fail "no script written for a deleted line"
echo "lor_edits: ok" >&2
