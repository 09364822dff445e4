#!/usr/bin/env bash
# End to end: bad input never crashes and never leaves a partial or clobbered output. Each case
# checks the exit status, the message (file, offset or line, what was expected) and the outputs.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/fw
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# expect STATUS MESSAGE_FRAGMENT -- lorgen arguments...
expect() {
  local want=$1 fragment=$2
  shift 3
  local status=0
  "$lorgen" "$@" >out.txt 2>err.txt || status=$?
  [ "$status" -eq "$want" ] || { cat err.txt >&2; fail "lorgen $*: exit $status, expected $want"; }
  grep -qF -- "$fragment" err.txt || { cat err.txt >&2; fail "lorgen $*: no '$fragment'"; }
}

step "a real profile and program to break"
tracer=$(build_tracer gcc tracer "$src")
for f in sensor control comms faults run host_main; do
  gcc -O2 -ffunction-sections -finstrument-functions -I"$fw" -c "$fw/$f.c" -o "$f.p.o"
  gcc -O2 -ffunction-sections -I"$fw" -c "$fw/$f.c" -o "$f.o"
done
gcc ./*.p.o $tracer -o fw-prof
gcc sensor.o control.o comms.o faults.o run.o host_main.o -o fw
LGTRACE_OUT=good.prf ./fw-prof >/dev/null
"$lorgen" good.prf fw -o keep.lor
cp keep.lor keep.orig

step "truncated profile: offset named, exit 1, outputs untouched, no temporary left"
size=$(stat -c %s good.prf)
head -c $((size - 3)) good.prf >cut.prf
expect 1 "cut.prf:0x" -- cut.prf fw -o keep.lor --ld-script new.ld
cmp keep.lor keep.orig || fail "a failed run changed an existing output"
[ ! -e new.ld ] || fail "a failed run created an output"
[ -z "$(ls | grep lorgen-tmp || true)" ] || fail "a temporary file was left behind"

step "corrupt record tag"
cp good.prf tag.prf
# The first trace record's tag byte: find it from the header's trace offset (bytes 77-80 of the
# header, which starts at byte 14; offsets count from the end of the 89-byte header).
trace=$(od -An -tu4 -j $((14 + 77)) -N4 good.prf | tr -d ' ')
printf '\x7a' | dd of=tag.prf bs=1 seek=$((14 + 89 + trace + 4)) conv=notrunc status=none
expect 1 "expected 0xFF (call) or 0x00 (return), found 0x7a" -- tag.prf fw -o x.lor
[ ! -e x.lor ] || fail "output written for a corrupt profile"

step "not a profile, not an ELF"
echo "hello" >text.txt
expect 1 "text.txt: error: unknown input format" -- text.txt fw -o x.lor
: >empty.prf
expect 1 "found an empty file" -- empty.prf fw -o x.lor
expect 1 "missing.prf: error: cannot read" -- missing.prf fw -o x.lor

step "a broken ELF"
head -c 200 fw >broken.elf
expect 1 "broken.elf" -- good.prf broken.elf -o x.lor
[ ! -e x.lor ] || fail "output written for a broken ELF"

step "usage errors exit 2"
expect 2 "unknown option '--frobnicate'" -- --frobnicate good.prf fw -o x.lor
expect 2 "--cache-size: expected a number" -- --cache-size lots good.prf fw -o x.lor
expect 2 "nothing to write" -- good.prf fw
expect 2 "line size 48: expected a power of two" -- --line-size 48 good.prf fw -o x.lor
expect 2 "no ELF given" -- good.prf -o x.lor

step "a hand-edited .LOR naming a function the ELF lacks"
sed 's/^  fn comms_crc /  fn comms_crc_renamed /' keep.lor >edited.lor
line=$(grep -n 'comms_crc_renamed' edited.lor | cut -d: -f1)
expect 1 "edited.lor:$line: error: function 'comms_crc_renamed' is not in the ELF inputs" \
  -- script edited.lor fw --ld-script y.ld
[ ! -e y.ld ] || fail "script written for a .LOR that does not match the ELF"
printf 'lorgen-lor 9\n' >future.lor
expect 1 "future.lor:1: error: expected .LOR version 1 to 1, found 9" -- script future.lor fw --ld-script y.ld

step "an input is never opened for writing"
chmod a-w good.prf fw
"$lorgen" good.prf fw -o ok.lor
chmod u+w good.prf fw
echo "errors: ok" >&2
