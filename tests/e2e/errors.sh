#!/usr/bin/env bash
# End to end: bad input never crashes and never leaves a partial or clobbered output. Each case
# checks the exit status, the message (file, offset or line, what was expected) and the outputs.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/control_loop
rm -rf "$work" && mkdir -p "$work" && cd "$work"

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

step "a header claiming 4 billion functions: a limit error before anything is allocated"
cp good.prf huge.prf
# The function count is header bytes 61-64, counted from the header's size field at byte 14.
printf '\xff\xff\xff\xff' | dd of=huge.prf bs=1 seek=$((14 + 61)) conv=notrunc status=none
expect 1 "huge.prf:0x4b: header: error: header says 4294967295 functions, more than the 16777216 lorgen reads (LG_PROFILE_MAX_FUNCS)" \
  -- huge.prf fw -o x.lor
[ ! -e x.lor ] || fail "output written for a profile past a limit"

# ---- Every loader: the exact message (file, line or offset, expected vs found), exit 1 -------
bad=$src/tests/fixtures/malformed
step "malformed input of every format"
cp "$bad"/* .
expect 1 "text1_bad_handle.txt:3:1: error: expected a handle (up to 8 hexadecimal digits), found 'ZZ'" \
  -- text1_bad_handle.txt fw -o x.lor
expect 1 "xml_unclosed.xml:4:3: error: expected well-formed XML, found: mismatched tag (byte 111)" \
  -- xml_unclosed.xml fw -o x.lor
expect 1 "aprof_bad_number.aprof:3: error: field 1 (rms) of the p line: expected a number, found 'x'" \
  -- --format aprof aprof_bad_number.aprof fw -o x.lor
expect 1 "callgrind_bad_calls.callgrind:7: error: call count 'many' is not a number" \
  -- callgrind_bad_calls.callgrind fw -o x.lor
expect 1 "perf_period_missing.txt:4: error: expected a period before the event name, as in the sample at line 1, found none" \
  -- perf_period_missing.txt fw -o x.lor
expect 1 "lor_bad_number.lor:3: error: expected a whole number for size, found '12k'" \
  -- script lor_bad_number.lor fw --ld-script y.ld
# BR: a module mapping (type 1, module 1, 8-byte name), then a CURRENT LINE (type 3) cut after 4
# of its 8 bytes.
printf '\x01\x00\x01\x00\x08main.brs\x03\x00\x01\x00\x00' >cut.br
expect 1 "cut.br:0xd: record 1: error: expected 8 bytes of CURRENT LINE (3), found only 5 before the end of the file" \
  -- cut.br fw -o x.lor
# winIDEA .BIN next to a Text1 export: 24-byte v1.1 records; the second enters handle 7, which
# the mapping does not list; then the same file cut inside its second record.
printf '* HANDLE(Functions) %%HANDLE%%,%%NAME%%\n00000000,main\n' >tl.txt
rec() { # rec HANDLE TYPE TIME: one little-endian v1.1 record (values below 256)
  printf "\\x$(printf %02x "$1")\\x00\\x00\\x00\\x$(printf %02x "$2")\\x00\\x00\\x00"
  printf '\x00\x00\x00\x00\x00\x00\x00\x00'
  printf "\\x$(printf %02x "$3")\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
}
{ rec 0 3 0; rec 7 3 10; } >tl.BIN
expect 1 "tl.BIN:0x18: record 1: error: handle 0x00000007 (Entry event) is not in the main file's mapping" \
  -- tl.txt fw -o x.lor
head -c 40 tl.BIN >cut.BIN && mv cut.BIN tl.BIN
expect 1 "tl.BIN: error: size 40 bytes is not a multiple of the 24-byte record: 16 trailing byte(s) after record 1 (offset 0x18); the file is cut short or not a timeline" \
  -- tl.txt fw -o x.lor
rm tl.BIN
# ELF: an object cut inside its section header table.
gcc -O2 -ffunction-sections -c "$src/tests/fixtures/elf/b.c" -o b.o
head -c 200 b.o >cut.o
expect 1 "cut.o: error: truncated: " -- good.prf cut.o -o x.lor
grep -qE "cut.o: error: truncated: [0-9]+ section headers at offset [0-9]+ do not fit in the 200 bytes of the file" err.txt ||
  fail "cut.o: the message does not say where the section headers are"
[ ! -e x.lor ] || fail "output written for a malformed input"

# ---- Outputs: whole or not at all, never over an existing one on failure -------------------
step "a failure after some outputs were opened: none replaced, no temporary left"
cp keep.lor keep.orig
echo "old script" >keep.ld
cp keep.ld keep.ld.orig
# The .LOR is written first; the linker script's directory does not exist, so its temporary
# file cannot be made: nothing may be renamed into place.
expect 1 "no/such/dir/x.ld: error: cannot create output: No such file or directory" \
  -- good.prf fw -o keep.lor --ld-script keep.ld --report no/such/dir/x.ld
cmp keep.lor keep.orig || fail "an output was replaced although a later one failed"
cmp keep.ld keep.ld.orig || fail "an output was replaced although a later one failed"
[ -z "$(ls -a | grep lorgen-tmp || true)" ] || fail "a temporary file was left behind"

step "an output directory that is not writable"
mkdir -p ro && cp keep.lor ro/keep.lor
chmod a-w ro
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  # root writes anywhere: run lorgen as nobody, who may read the inputs but not write in ro/.
  if have setpriv && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
    as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  fi
fi
if [ "$(id -u)" -ne 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  # The output itself is writable by anyone: only its directory stops lorgen.
  chmod a+rx . && chmod a+r good.prf fw && chmod a+w ro/keep.lor
  status=0
  "${as_user[@]}" "$lorgen" good.prf fw -o ro/keep.lor >out.txt 2>err.txt || status=$?
  [ "$status" -eq 1 ] || { cat err.txt >&2; fail "unwritable directory: exit $status, expected 1"; }
  grep -qF "ro/keep.lor: error: cannot create output: Permission denied" err.txt ||
    { cat err.txt >&2; fail "unwritable directory: no 'cannot create output' message"; }
  cmp ro/keep.lor keep.orig || fail "an output in an unwritable directory changed"
  [ -z "$(ls -a ro | grep lorgen-tmp || true)" ] || fail "a temporary file was left in ro/"
else
  echo "   (skipped: running as root without setpriv)" >&2
fi
chmod u+w ro

step "an input is never opened for writing"
chmod a-w good.prf fw
"$lorgen" good.prf fw -o ok.lor
chmod u+w good.prf fw
if have strace && strace -o /dev/null true 2>/dev/null; then
  # Even root, whom permissions do not stop: no open of an input may ask for write access.
  # LeakSanitizer cannot run under ptrace: leaks are checked by every other run.
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -e trace=open,openat,creat \
    -o opens.txt "$lorgen" good.prf fw -o ok.lor --ld-script ok.ld
  writes=$(grep -E '"(good\.prf|fw)"' opens.txt | grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(' ||
    true)
  [ -z "$writes" ] || { echo "$writes" >&2; fail "an input was opened for writing"; }
  grep -qE 'openat\(.*"good\.prf", O_RDONLY' opens.txt || fail "strace did not see good.prf read"
  # Outputs are made beside their target and renamed: never opened in place.
  if grep -E '"ok\.(lor|ld)"' opens.txt | grep -qE 'O_WRONLY|O_RDWR|O_CREAT'; then
    fail "an output was written in place instead of through a temporary file"
  fi
fi
echo "errors: ok" >&2
