#!/usr/bin/env bash
# End to end: hand edits of a real .LOR that would break the link are errors naming the line
# (exit 1, nothing written), and an edit that moves cliques off the cache offsets placement chose
# is said, with both offsets (docs/lor-format.md, "What lorgen script checks"). A file saved with
# other line ends (CR, CRLF) or a byte-order mark reads as it is; statements run together, an
# empty name, a pad= past the bound or a phase= on a function that cannot move alone are errors
# for every command; eval judges a .LOR in the cache it was made for; and check refuses a .LOR
# that lists no function instead of passing "0 of 0".
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/control_loop
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
expect 1 "lorgen: typo.lor:$n: error: expected a statement (lorgen-lor, cache, algorithm, input, select, section, region, pinned, clique, fn, cold), found 'fnn'" \
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
step "CR, CRLF and a byte-order mark: the same script as the file as lorgen wrote it"
tr '\n' '\r' <fw.lor >cr.lor
sed 's/$/\r/' fw.lor >crlf.lor
{ printf '\357\273\277'; cat fw.lor; } >bom.lor
for f in cr crlf bom; do
  expect 0 "" -- script $f.lor fw $objs --ld-script $f.ld
  cmp -s $f.ld fw.ld || fail "$f.lor: another script than fw.lor's"
done

step "a statement run into the one before it (a lost line end): an error, not a lost function"
n=$(line_of '^cold ' fw.lor)
sed 's/^cold \([0-9]*\)$/cold \1  fn wt_add/' fw.lor >joined.lor
expect 1 "lorgen: joined.lor:$n: error: expected nothing after 'cold 7', found 'fn': one statement a line (was a line end lost?)" \
  -- script joined.lor fw $objs --ld-script joined.ld
[ ! -e joined.ld ] || fail "a script was written for a .LOR with a lost line end"

step "an empty section=: said to be empty"
sed 's/^\(  fn comms_crc .*\)section=[^ ]*/\1section=/' fw.lor >empty.lor
n=$(line_of '^  fn comms_crc ' empty.lor)
expect 1 "lorgen: empty.lor:$n: error: expected a name after section=, found it empty (delete the key to take the section from the ELF inputs)" \
  -- script empty.lor fw $objs --ld-script empty.ld

step "pad= past the bound: the same error from script and eval"
for pad in 4294967296 18446744073709551615; do
  sed "s/^\(clique 4 .*\)pad=184/\1pad=$pad/" fw.lor >pad.lor
  n=$(line_of '^clique 4 ' pad.lor)
  message="lorgen: pad.lor:$n: error: expected pad= at most 67108864 bytes, found $pad (placement pads less than a cache way)"
  expect 1 "$message" -- script pad.lor fw $objs --ld-script pad.ld
  [ ! -e pad.ld ] || fail "a script was written with pad=$pad"
  expect 1 "$message" -- eval -q fw.callgrind fw $objs --lor pad.lor
done

step "eval judges a .LOR in the cache it was made for, unless told otherwise"
"$lorgen" eval -q fw.callgrind fw $objs --lor fw.lor >eval.txt ||
  fail "eval --lor fw.lor failed"
head -1 eval.txt | grep -q '^cache 256 bytes, 32-byte lines, 1-way;' ||
  fail "eval judged fw.lor in another cache than its own: $(head -1 eval.txt)"
"$lorgen" eval --cache-size 8K fw.callgrind fw $objs --lor fw.lor >eval.txt 2>eval.err ||
  fail "eval --cache-size 8K --lor fw.lor failed: $(cat eval.err)"
grep -qx "lorgen: fw.lor: note: made for a 256-byte 1-way cache with 32-byte lines (its cache statement), judged in the 8192-byte 1-way cache with 32-byte lines the command line gives" \
  eval.err || fail "eval --cache-size 8K did not note the cache fw.lor was made for: $(cat eval.err)"
grep -q '^cache 8192 bytes' eval.txt || fail "eval --cache-size 8K judged in another cache"

step "phase= on a function inside a shared .text (no -ffunction-sections): an error"
mkdir -p shared
sobjs=""
for f in sensor control comms faults run host_main; do
  gcc -O2 -I"$fw" -c "$fw/$f.c" -o "shared/$f.o"
  sobjs="$sobjs shared/$f.o"
done
gcc $sobjs -o shared/fw
printf 'lorgen-lor 1\nclique 1\n  fn comms_put\n  fn comms_crc phase=0\n' >shared.lor
expect 1 "lorgen: shared.lor:4: error: expected phase= only on a function that moves alone, found it on 'comms_crc': shares its input section with other functions (build with -ffunction-sections); no padding can reach its phase: delete phase=
lorgen: shared.lor:3: error: expected the 4 functions of the fixed group shared/comms.o(.text), the first 'comms_crc', listed together in one place, found only some of them here: the linker moves an input section whole, so move the group's lines together (or build shared/comms.o with -ffunction-sections)
lorgen: shared.lor: error: 1 function(s) have a phase= that the linker cannot give them" \
  -- script shared.lor shared/fw $sobjs --ld-script shared.ld

step "a fixed group is listed whole, in one place, or the .LOR is refused"
printf 'lorgen-lor 1\nclique 1\n  fn comms_crc\n  fn comms_put\n  fn comms_pending\n  fn comms_frame\n' >whole.lor
"$lorgen" script whole.lor shared/fw $sobjs --ld-script whole.ld 2>err.txt || { cat err.txt >&2; fail "a whole group was refused"; }
[ "$(grep -c 'comms.o(.text)' whole.ld)" -ge 1 ] || { cat whole.ld >&2; fail "no pattern for comms.o's .text"; }
printf 'lorgen-lor 1\nclique 1\n  fn comms_crc\n  fn comms_put\nclique 2\n  fn comms_pending\n  fn comms_frame\n' >split.lor
expect 1 "lorgen: split.lor:3: error: expected the 4 functions of the fixed group shared/comms.o(.text), the first 'comms_crc', listed together in one place, found only some of them here: the linker moves an input section whole, so move the group's lines together (or build shared/comms.o with -ffunction-sections)
lorgen: split.lor:6: error: expected the 4 functions of the fixed group shared/comms.o(.text), the first 'comms_crc', listed together in one place, found them in two places: the linker moves an input section whole, so move the group's lines together (or build shared/comms.o with -ffunction-sections)
lorgen: split.lor: error: 1 fixed group(s) are not listed whole, in one place" \
  -- script split.lor shared/fw $sobjs --ld-script split.ld
[ ! -e split.ld ] || fail "a script was written for a split group"
[ ! -e shared.ld ] || fail "a script was written for a phase no padding reaches"

step "check refuses a .LOR that lists no function instead of passing 0 of 0"
grep -v '^  fn ' fw.lor >nofn.lor
expect 1 "lorgen: nofn.lor: error: expected fn lines to check, found none: the .LOR orders nothing (an empty or damaged file?)" \
  -- check nofn.lor fw $objs
[ ! -s out.txt ] || fail "check printed a verdict for a .LOR with no functions: $(cat out.txt)"
echo "lor_edits: ok" >&2
