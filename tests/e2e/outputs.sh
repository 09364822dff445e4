#!/usr/bin/env bash
# End to end: what an output may replace, and how. No output replaces an input or another
# output; a symbolic link is written through; modes are kept; a read-only output is refused; a
# failed write, a failed rename or a signal leaves no temporary file, and either every old output
# or every new one; a full disk and a file-size limit say so. Also what shows of the loaders'
# limits through the CLI (a sparse tail after a .prf, a callgrind file cut short), option
# values that used to wrap, and the options a command does not use or that are given twice, which
# are refused rather than dropped. docs/reliability.md states these guarantees.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
gen=$(dirname "$lorgen")/tests/lg_gen_prf
[ -x "$gen" ] || fail "$gen is missing (built with the tests)"
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# No temporary file (*.lorgen-tmp.*) nor kept old contents (*.lorgen-old.*) in directory $1.
no_leftovers() {
  local left
  left=$(ls -a "${1:-.}" | grep -E '\.lorgen-(tmp|old)\.' || true)
  [ -z "$left" ] || fail "left behind in ${1:-.}: $left"
}

# old_or_new STATUS WHAT OUTPUT NEW [OUTPUT NEW]...: checks the outputs of a run that a SIGTERM
# may have ended (each OUTPUT held "old" before, NEW is what lorgen writes) and sets $outcome to
# old or new. Exit 0: every output is new. Exit 143: every output is old, or every one is new,
# since a SIGTERM during the renames takes effect after the last one. A mix fails, naming what
# each output holds. Only the final files are read: the run has ended.
old_or_new() {
  local status=$1 what=$2 seen="" held
  shift 2
  outcome=""
  while [ $# -gt 0 ]; do
    if [ "$(cat "$1")" = old ]; then
      held=old
    elif cmp -s "$1" "$2"; then
      held=new
    else
      held=neither
    fi
    seen+=" $1=$held"
    [ "${outcome:-$held}" = "$held" ] || outcome=mixed
    [ "$outcome" = mixed ] || outcome=$held
    shift 2
  done
  case "$status:$outcome" in
    0:new | 143:old | 143:new) ;;
    *:mixed | *:neither)
      fail "$what: exit $status, neither every output old nor every one new:$seen" ;;
    *) fail "$what: exit $status with$seen; expected exit 0 or 143 with every output new" ;;
  esac
}

# Waits (at most 10 s) until a file matching the glob $1 exists.
wait_for() {
  local i
  for i in $(seq 200); do
    compgen -G "$1" >/dev/null && return 0
    sleep 0.05
  done
  fail "no $1 after 10 s"
}

step "a program and a profile"
awk 'BEGIN {
  for (i = 0; i < 200; i++)
    printf "__attribute__((noinline)) int f%d(int x) { return x * %d + (x >> %d); }\n", i, i + 3, i % 5
  printf "int main(int argc, char **argv) { (void)argv; int r = 0;\n"
  for (i = 0; i < 200; i++) printf "  r += f%d(argc);\n", i
  printf "  return r & 1; }\n"
}' >prog.c
gcc -O2 -ffunction-sections -c prog.c -o prog.o
gcc prog.o -o prog
"$gen" 200 20000 7 t.prf
"$lorgen" -q t.prf prog prog.o -o ref.lor --ld-script ref.ld --report ref.txt

# ---- An output over an input (issue 13, item 4) ---------------------------------------------

step "an output over an input: a usage error before anything is read"
cp t.prf in.prf && cp in.prf in.orig
expect 2 "-o in.prf is the input in.prf (one file, two names): lorgen does not write over its inputs" \
  -- in.prf prog prog.o -o in.prf
cmp in.prf in.orig || fail "the profile was replaced"
cp prog prog.orig
expect 2 "-o prog is the input prog" -- t.prf prog prog.o -o prog
cmp prog prog.orig || fail "the ELF was replaced"
cp ref.lor my.lor && cp my.lor my.orig
expect 2 "--ld-script my.lor is the input my.lor" -- script my.lor prog prog.o --ld-script my.lor
cmp my.lor my.orig || fail "the hand-edited .LOR was replaced"
expect 2 "-o t.prf is the input t.prf" -- callgraph t.prf -o t.prf
# Through links: a hard link and a symbolic link name the input too.
ln t.prf hard.prf
expect 2 "-o hard.prf is the input t.prf" -- t.prf prog -o hard.prf
ln -s t.prf soft.lor
expect 2 "-o soft.lor is the input t.prf" -- t.prf prog -o soft.lor
[ -L soft.lor ] && cmp t.prf hard.prf || fail "a linked input changed"
# Before anything is read: an input that is no profile at all still gives the usage error.
echo "not a profile" >junk.txt
expect 2 "-o junk.txt is the input junk.txt" -- junk.txt prog -o junk.txt
grep -q "not a profile" junk.txt || fail "junk.txt was replaced"

step "two outputs on one file: a usage error, nothing written"
expect 2 "-o x and --report x name one file: give each output its own" -- t.prf prog -o x --report x
expect 2 "-o x and --report ./x name one file" -- t.prf prog -o x --report ./x
# Through a symbolic link to a directory: two spellings of one file not made yet.
mkdir real && ln -s real alias
expect 2 "--ld-script real/a.ld and --lld alias/a.ld name one file" \
  -- t.prf prog prog.o --ld-script real/a.ld --lld alias/a.ld
expect 2 "-o - and --report - name one file" -- t.prf prog -o - --report -
[ ! -e x ] && [ ! -e real/a.ld ] || fail "an output was written after a usage error"
# A device is written in place: naming it twice destroys nothing.
"$lorgen" -q t.prf prog -o /dev/null --report /dev/null

# ---- Symbolic links, modes, read-only files (item 5) ----------------------------------------

step "a symbolic link is written through: the link stays, its target gets the output"
mkdir gen && echo "old order" >gen/app.lor && ln -s gen/app.lor link.lor
"$lorgen" -q t.prf prog prog.o -o link.lor
[ -L link.lor ] || fail "the symbolic link was replaced by a file"
cmp gen/app.lor ref.lor || fail "the link's target did not get the output"
no_leftovers . && no_leftovers gen
ln -s nowhere/app.lor dangling.lor
expect 1 "dangling.lor: error: output is a symbolic link that leads to no file (No such file or directory): not written through" \
  -- t.prf prog -o dangling.lor
[ -L dangling.lor ] && [ ! -e nowhere ] || fail "a dangling link was written through or replaced"

step "a replaced file keeps its mode; a new one gets 0666 less the umask"
echo old >m700.lor && chmod 700 m700.lor
echo old >m640.ld && chmod 640 m640.ld
(umask 027 && "$lorgen" -q t.prf prog prog.o -o m700.lor --ld-script m640.ld --report new.txt)
[ "$(stat -c %a m700.lor)" = 700 ] || fail "a 0700 output came back $(stat -c %a m700.lor)"
[ "$(stat -c %a m640.ld)" = 640 ] || fail "a 0640 output came back $(stat -c %a m640.ld)"
[ "$(stat -c %a new.txt)" = 640 ] || fail "a new output under umask 027 is $(stat -c %a new.txt)"
cmp m700.lor ref.lor || fail "the 0700 output was not written"

step "a read-only output is refused (even for root), and no other output is replaced"
echo "old lor" >a.lor && cp a.lor a.orig
echo "old script" >ro.ld && chmod 444 ro.ld
expect 1 "ro.ld: error: output is read-only (mode 0444): not replaced" \
  -- t.prf prog prog.o -o a.lor --ld-script ro.ld
cmp a.lor a.orig || fail "an output was replaced although another was refused"
[ "$(cat ro.ld)" = "old script" ] || fail "the read-only output was replaced"
no_leftovers

step "another user's file that lorgen's user may not write is refused"
if [ "$(id -u)" -eq 0 ] && have setpriv && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
  mkdir shared && chmod 777 shared && echo "root's order" >shared/app.lor
  chmod a+r t.prf prog && chmod a+x . && chmod a+rw err.txt out.txt
  status=0
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$lorgen" -q t.prf prog -o shared/app.lor \
    2>err.txt || status=$?
  [ "$status" -eq 1 ] || { cat err.txt >&2; fail "another user's file: exit $status, expected 1"; }
  grep -qF "shared/app.lor: error: output is not writable by this user (mode 0644, owner uid 0): not replaced" err.txt ||
    { cat err.txt >&2; fail "another user's file: no refusal"; }
  [ "$(cat shared/app.lor)" = "root's order" ] || fail "another user's file was replaced"
  no_leftovers shared
else
  echo "   (skipped: needs root and setpriv)" >&2
fi

# ---- Failures and signals during the writes (item 5) ----------------------------------------

step "a rename that fails after an earlier one: the earlier output is put back"
# The report is a FIFO: lorgen writes it in place and waits there for a reader, after writing the
# .LOR and the script to their temporary files. Meanwhile the script's name becomes a directory,
# so its rename fails after the .LOR's succeeded.
echo "old lor" >a.lor && cp a.lor a.orig
echo "old script" >b.ld
mkfifo pipe.txt
status=0
"$lorgen" t.prf prog prog.o -o a.lor --ld-script b.ld --report pipe.txt 2>err.txt &
pid=$!
wait_for 'b.ld.lorgen-tmp.*'
rm b.ld && mkdir b.ld && touch b.ld/keep
cat pipe.txt >/dev/null
wait "$pid" || status=$?
[ "$status" -eq 1 ] || { cat err.txt >&2; fail "failed rename: exit $status, expected 1"; }
grep -qF "b.ld: error: cannot replace output: Is a directory" err.txt || { cat err.txt >&2; fail "no rename error"; }
grep -qF "a.lor: note: put back as it was, since a later output failed" err.txt || { cat err.txt >&2; fail "no note"; }
cmp a.lor a.orig || fail "an output stayed replaced although a later rename failed"
no_leftovers
rm -r b.ld

step "SIGINT, SIGTERM, SIGHUP during the writes: temporary files removed, old outputs kept"
set -m # background jobs get their own process group and keep SIGINT, as at a terminal
for sig in INT TERM HUP; do
  echo "old lor" >a.lor && echo "old script" >b.ld && cp a.lor a.orig && cp b.ld b.orig
  "$lorgen" -q t.prf prog prog.o -o a.lor --ld-script b.ld --report pipe.txt 2>err.txt &
  pid=$!
  wait_for 'b.ld.lorgen-tmp.*'
  compgen -G 'a.lor.lorgen-tmp.*' >/dev/null || fail "SIG$sig: no temporary .LOR"
  kill -"$sig" "$pid"
  status=0
  wait "$pid" || status=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$status" -eq "$want" ] || fail "SIG$sig: exit $status, expected $want (ended by the signal)"
  no_leftovers
  cmp a.lor a.orig && cmp b.ld b.orig || fail "SIG$sig: an output was replaced"
done
set +m

step "a signal at any moment of a long run: every old output or every new one, nothing left"
"$gen" 200 300000 11 long.prf
"$lorgen" -q long.prf prog prog.o -o new.lor --ld-script new.ld --report new.txt
# A SIGTERM that comes during the renames (near 0.31 s here; later on a loaded machine) ends
# lorgen after the last one, with exit 143 and every output new.
for delay in 0.02 0.1 0.2 0.28 0.31 0.34 0.37 0.4 0.45; do
  echo "old" >l.lor && echo "old" >l.ld && echo "old" >l.txt
  "$lorgen" -q long.prf prog prog.o -o l.lor --ld-script l.ld --report l.txt &
  pid=$!
  sleep "$delay"
  kill -TERM "$pid" 2>/dev/null || true
  status=0
  wait "$pid" || status=$?
  no_leftovers
  old_or_new "$status" "SIGTERM after ${delay}s" l.lor new.lor l.ld new.ld l.txt new.txt
  echo "   SIGTERM after ${delay}s: exit $status, every output $outcome" >&2
done
rm long.prf

step "a signal at the edges of the renames: all old outputs before, all new ones after"
if have strace && strace -o /dev/null true 2>/dev/null; then
  # strace holds each fsync and rename for 0.7 s after it happened, once it has logged it;
  # SIGTERM comes while the one named is held: the last fsync (just before the renames), the
  # first rename, and the last rename (the renames are done, signals are still held).
  for at in "fsync 3 old" "rename 1 new" "rename 3 new"; do
    read -r call nth want <<<"$at"
    echo "old" >a.lor && echo "old" >b.ld && echo "old" >c.txt
    : >trace.txt
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -o trace.txt \
      -e trace=fsync,rename,renameat,renameat2 \
      -e inject=fsync,rename,renameat,renameat2:delay_exit=700000 \
      "$lorgen" -q t.prf prog prog.o -o a.lor --ld-script b.ld --report c.txt &
    tracer=$!
    for i in $(seq 200); do
      [ "$(grep -cE "^[0-9]+ +$call[a-z0-9]*\\(" trace.txt)" -ge "$nth" ] && break
      sleep 0.05
    done
    [ "$(grep -cE "^[0-9]+ +$call[a-z0-9]*\\(" trace.txt)" -ge "$nth" ] ||
      fail "no $call number $nth after 10 s"
    kill -TERM "$(cat /proc/$tracer/task/*/children)"
    status=0
    wait "$tracer" || status=$?
    old_or_new "$status" "SIGTERM after $call $nth" a.lor ref.lor b.ld ref.ld c.txt ref.txt
    [ "$status" -eq 143 ] && [ "$outcome" = "$want" ] ||
      fail "SIGTERM after $call $nth: exit $status, every output $outcome; expected 143, $want"
    echo "   SIGTERM after $call $nth: exit 143, every output $outcome" >&2
    no_leftovers
  done
else
  echo "   (skipped: no strace, or ptrace not allowed)" >&2
fi

# ---- Full disk, file-size limit (items 5 and 13) --------------------------------------------

step "a file-size limit (SIGXFSZ): 'File too large', exit 1, nothing replaced or left"
echo "old lor" >a.lor && cp a.lor a.orig
status=0
(ulimit -f 4 && "$lorgen" -q t.prf prog prog.o -o a.lor --report big.txt) 2>err.txt || status=$?
[ "$status" -eq 1 ] || { cat err.txt >&2; fail "file-size limit: exit $status, expected 1"; }
grep -qE "a.lor: error: (cannot write|write failed): File too large" err.txt ||
  { cat err.txt >&2; fail "file-size limit: no 'File too large'"; }
cmp a.lor a.orig || fail "file-size limit: the output was replaced"
[ ! -e big.txt ] || fail "file-size limit: an output was created"
no_leftovers

step "a full device: 'No space left on device'"
expect 1 "No space left on device" -- -q t.prf prog -o /dev/full
grep -qE "^lorgen: /dev/full: error: (cannot write|write failed): No space left on device$" err.txt ||
  { cat err.txt >&2; fail "/dev/full: not the system's reason"; }
# A full file system: a tmpfs of one page in a private mount namespace, where unprivileged users
# may make one. The .LOR (12 KB) fills it while the writer is still writing.
if unshare -rm true 2>/dev/null; then
  status=0
  unshare -rm sh -c 'mkdir -p small && mount -t tmpfs -o size=4k tmpfs small &&
    "$0" -q t.prf prog prog.o -o small/a.lor; s=$?; ls -a small; exit $s' "$lorgen" \
    >ls.txt 2>err.txt || status=$?
  [ "$status" -eq 1 ] || { cat err.txt >&2; fail "full disk: exit $status, expected 1"; }
  grep -qE "small/a.lor: error: (cannot write|write failed): No space left on device" err.txt ||
    { cat err.txt >&2; fail "full disk: no 'No space left on device'"; }
  ! grep -q lorgen-tmp ls.txt || fail "full disk: a temporary file was left"
else
  echo "   (skipped: no private mount namespace for a small tmpfs)" >&2
fi

# ---- Loaders through the CLI (items 8 and 9) ------------------------------------------------

step "a .prf followed by 5 GB of zeros (sparse): the first bad record, in little memory and time"
cat >maxrss.c <<'EOF'
/* maxrss CMD...: runs CMD, prints its peak resident memory in KiB to stderr, exits as it did. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    (void)argc;
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status;
    struct rusage use;
    if (pid < 0 || wait4(pid, &status, 0, &use) < 0)
        return 126;
    fprintf(stderr, "maxrss_kib=%ld\n", use.ru_maxrss);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
EOF
gcc -O2 maxrss.c -o maxrss
cp t.prf tail.prf && truncate -s +5G tail.prf
size=$(stat -c %s t.prf)
start=$(date +%s)
status=0
./maxrss "$lorgen" tail.prf prog -o tail.lor 2>err.txt || status=$?
seconds=$(($(date +%s) - start))
[ "$status" -eq 1 ] || { cat err.txt >&2; fail "zero tail: exit $status, expected 1"; }
grep -qF "tail.prf:0x$(printf %x "$size"): trace record " err.txt &&
  grep -qF "error: record size 0 is too small for a trace record (at least 5)" err.txt ||
  { cat err.txt >&2; fail "zero tail: not the first bad record"; }
peak=$(sed -n 's/^maxrss_kib=//p' err.txt)
# The file is 5 GiB; lorgen holds a 1 MiB window of it, plus its own (sanitizers included).
[ "$peak" -lt $((256 * 1024)) ] || fail "zero tail: peak memory $peak KiB for a profile of $size bytes"
[ "$seconds" -lt 10 ] || fail "zero tail: took $seconds s"
rm tail.prf

step "a callgrind file cut to 40%: its summary: line says it is short"
cg=$src/tests/fixtures/samples/callgrind_test1.callgrind
head -c $(($(stat -c %s "$cg") * 40 / 100)) "$cg" >cut.callgrind
expect 1 "cut.callgrind:953: error: the part's cost lines add up to 22526 Ir by the end of the file, but its 'summary:' (line 18) says 610235: the file is cut short" \
  -- cut.callgrind prog -o cut.lor
[ ! -e cut.lor ] || fail "an output was written for a cut profile"

# ---- Messages that must be true (item 13) ---------------------------------------------------

step "option values out of range are usage errors, in their own units"
expect 2 "--cache-size: 17592186044417M is out of range: expected 1 to 4294967295 bytes" \
  -- --cache-size 17592186044417M t.prf prog -o x.lor
expect 2 "--cache-size: 4096M is out of range" -- --cache-size 4096M t.prf prog -o x.lor
expect 2 "--ways: expected a whole number, found '1K'" -- --ways 1K t.prf prog -o x.lor
expect 2 "--ways: 0 is out of range: expected 1 to 4294967295 ways" -- --ways 0 t.prf prog -o x.lor
[ ! -e x.lor ] || fail "an output was written after a usage error"

# ---- Options a command does not use, values given twice (issue 28, items 6 and 11) ----------

step "an option its command does not use: exit 2 before any input is read, outputs untouched"
echo "stale report" >r.txt
cp r.txt r.orig
# Each refused with the command that would have dropped it; a missing input shows that nothing
# was read (reading it would exit 1).
expect 2 "script does not use --report (only the main command does)" \
  -- script ref.lor prog prog.o --ld-script s.ld --report r.txt --report-json r.json --dot d.dot
expect 2 "script does not use --report" -- script missing.lor prog --ld-script s.ld --report r.txt
expect 2 "script does not use --dot (only callgraph does)" -- script ref.lor prog --lld s.lld --dot d.dot
expect 2 "script does not use --cache-size (the main command and eval do)" \
  -- script ref.lor prog prog.o --ld-script s.ld --cache-size 4K
expect 2 "script does not use --algorithm (the main command and eval do)" \
  -- script ref.lor prog prog.o --ld-script s.ld --algorithm c3
expect 2 "check does not use -o (the main command, script and callgraph do)" \
  -- check ref.lor prog prog.o -o c.lor
expect 2 "eval does not use --ld-script (the main command and script do)" \
  -- eval t.prf prog prog.o --ld-script e.ld
expect 2 "eval --lor does not use --algorithm" -- eval t.prf prog prog.o --lor ref.lor --algorithm c3
expect 2 "callgraph does not use --report (only the main command does)" \
  -- callgraph t.prf prog -o cg.txt --report r.txt
expect 2 "the main command does not use --dot (only callgraph does)" -- t.prf prog -o m.lor --dot m.dot
expect 2 "the main command does not use --graphml (only callgraph does)" \
  -- t.prf prog -o m.lor --graphml m.xml
expect 2 "formats: takes no inputs, found 't.prf'" -- formats t.prf
cmp r.txt r.orig || fail "a refused run changed the stale report"
for f in s.ld s.lld r.json d.dot c.lor e.ld cg.txt m.lor m.dot m.xml; do
  [ ! -e "$f" ] || fail "$f was written by a run refused as a usage error"
done
# The same commands with only the options they use write every output asked for.
"$lorgen" -q script ref.lor prog prog.o --ld-script s.ld --lld s.lld
"$lorgen" -q callgraph t.prf prog -o cg.txt --dot d.dot
[ -s s.ld ] && [ -s s.lld ] && [ -s cg.txt ] && [ -s d.dot ] || fail "an output asked for is missing"

step "the help and the manual page list the options each command takes, alike"
"$lorgen" --help | sed -n '/^Which command takes which option/,$p' | tail -n +2 >help.txt
grep -qx "  check         none" help.txt || { cat help.txt >&2; fail "the help does not say check takes none"; }
grep -qx "  formats       none" help.txt || fail "the help does not say formats takes none"
# The manual page's copy: the .nf block after its "Generated from the option table" comment.
sed -n '/Generated from the option table/,/^\.fi$/p' "$src/docs/lorgen.1" |
  sed '1,/^\.nf$/d; /^\.fi$/d; s/\\-/-/g' >man.txt
diff help.txt man.txt >&2 || fail "docs/lorgen.1 lists other options per command than lorgen --help"

step "an output or setting given twice: exit 2, nothing written; --weight once per profile"
expect 2 "-o given twice (-o once-a.lor, then -o once-b.lor): it takes one value" \
  -- t.prf prog -o once-a.lor -o once-b.lor
expect 2 "--ld-script given twice (--ld once-x.ld, then --ld-script once-y.ld)" \
  -- t.prf prog -o once-a.lor --ld once-x.ld --ld-script once-y.ld
expect 2 "--cache-size given twice (--cache-size 4K, then --cache-size 16K)" \
  -- --cache-size 4K t.prf prog -o once-a.lor --cache-size 16K
expect 2 "--weight given twice before one profile (2, then 3)" -- --weight 2 --weight 3 t.prf prog -o once-a.lor
for f in once-a.lor once-b.lor once-x.ld once-y.ld; do
  [ ! -e "$f" ] || fail "$f was written by a run refused as a usage error"
done
cp t.prf t2.prf
"$lorgen" -q --weight 2 t.prf --weight 3 t2.prf prog -o once-a.lor || fail "one --weight per profile was refused"

step "an empty output name: a usage error before anything is read"
expect 2 "--ld-script: expected a file name, found an empty string" -- missing.prf prog -o x.lor --ld-script ""
expect 2 "-o: expected a file name, found an empty string" -- script missing.lor prog -o ""
[ ! -e x.lor ] || fail "an output was written after a usage error"

step "--algorithm names every algorithm, the default too; too many digits are out of range"
expect 2 "--algorithm: unknown algorithm 'chain' (expected one of: chains, cliques, input, hot-first, pettis-hansen, c3; chains is the default)" \
  -- --algorithm chain t.prf prog -o x.lor
expect 2 "-n: 18446744073709551616 is out of range: expected 0 to 18446744073709551615" \
  -- -n 18446744073709551616 t.prf prog -o x.lor
expect 2 "--cache-size: 18446744073709551616 is out of range: expected 1 to 4294967295 bytes" \
  -- --cache-size 18446744073709551616 t.prf prog -o x.lor
[ ! -e x.lor ] || fail "an output was written after a usage error"

step "a layout past the end of the address space: an error, exit 1, no output"
cat >top.c <<'EOF'
__attribute__((noinline)) int f0(int x) { return x + 1; }
__attribute__((noinline)) int f1(int x) { return f0(x) * 3; }
__attribute__((noinline)) int f2(int x) { return f1(x) - 2; }
void _start(void) { f2(1); for (;;); }
EOF
if gcc -O2 -ffunction-sections -fno-pic -c top.c -o top.o &&
  gcc -nostdlib -static -no-pie -Wl,-Ttext=0xffffffffffffff00 top.o -o top 2>/dev/null; then
  "$gen" 3 50 3 top.prf
  expect 1 "error: layout from 0xffffffffffffff00 passes the address space" \
    -- --no-safeguard --algorithm cliques top.prf top -o top.lor --report top.txt
  [ ! -e top.lor ] && [ ! -e top.txt ] || fail "outputs written after an error"
else
  echo "   (skipped: cannot link a program at the top of the address space)" >&2
fi

no_leftovers
echo "outputs: ok" >&2
