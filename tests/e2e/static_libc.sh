#!/usr/bin/env bash
# End to end: a static glibc program ordered with its objects and libc.a. A C library function
# whose input section's name other members share (.text.sse4.2, .text.avx) is written with its
# archive member, never as a bare section name that would pull the other members' code in; the
# archive's members without a symbol table are one note, not a warning each; a member's section
# that holds several functions (memcpy's) is ordered as a fixed group; statics inside archive
# members bind; a function the link took from another file (crt1.o's _dl_relocate_static_pie) is
# not bound to libc.a's; and lorgen check passes on the relinked program.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
have valgrind || { echo "SKIP: valgrind is not installed" >&2; exit 77; }
libc=$(gcc -print-file-name=libc.a)
[ -f "$libc" ] || { echo "SKIP: no static C library ($libc)" >&2; exit 77; }
rm -rf "$work" && mkdir -p "$work/obj" && cd "$work"
gcc -O2 -ffunction-sections -c "$src/tests/e2e/static_libc/main.c" -o obj/main.o
gcc -static obj/main.o -o app
./app >base.out
valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out ./app >cg.stdout 2>vg.txt ||
  { cat vg.txt >&2; fail "callgrind failed"; }
cmp -s base.out cg.stdout || fail "the program under callgrind printed another result"

step "ordered with the objects and libc.a"
"$lorgen" cg.out app obj/main.o "$libc" -o a.lor --ld-script a.ld 2>err.txt ||
  { cat err.txt >&2; fail "lorgen failed"; }
n=$(grep -c "no symbol table" err.txt || true)
[ "$n" -le 1 ] || { head -5 err.txt >&2; fail "$n messages about archive members without a symbol table"; }
grep -q "note: [0-9]* archive member(s) have no symbol table" err.txt ||
  fail "no note counting libc.a's members without a symbol table"

step "no bare pattern names a section other members of libc.a have too"
objdump -h "$libc" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $2 }' | sort | uniq -c |
  awk '$1 > 1 { print $2 }' >shared-names.txt
grep -q '^\.text\.sse4\.2$\|^\.text\.avx$' shared-names.txt || fail "libc.a no longer shares such names"
sed -n 's/^ *\*(\([^ )]*\))$/\1/p' a.ld | sort -u >bare.txt
shared=$(comm -12 bare.txt shared-names.txt)
[ -z "$shared" ] || { cat a.ld >&2; fail "bare patterns of shared section names: $shared"; }
grep -q 'lib\[cg\]\.a:[^ (]*(\.text\.' a.ld || { cat a.ld >&2; fail "no libc.a member's section is ordered"; }

step "glibc's memcpy, in a section it shares with other functions, is ordered as a fixed group"
"$lorgen" callgraph cg.out -o cg.txt
memcpy=$(sed -n 's/^main \(__mem[a-z_0-9]*\) 300$/\1/p' cg.txt)
[ -n "$memcpy" ] || { grep '^main ' cg.txt >&2; fail "callgrind should see main call memcpy 300 times"; }
awk '$1 == "cold" { exit } $1 == "fn" { print }' a.lor | grep -q "^  fn $memcpy .* group=[0-9]* " ||
  { grep -n "$memcpy" a.lor >&2; fail "$memcpy is not ordered in its fixed group"; }

step "the relinked program runs, and lorgen check finds every function where it was asked"
gcc -static obj/main.o -Wl,-T,a.ld -o app-ordered
./app-ordered >ordered.out
cmp -s base.out ordered.out || fail "the relinked program prints a different result"
"$lorgen" check a.lor app-ordered obj/main.o "$libc" >check.txt 2>&1 ||
  { grep -v '^in order' check.txt >&2; fail "lorgen check"; }
step "--exclude of one member takes its fixed group out; the .LOR keeps the selection"
"$lorgen" cg.out app obj/main.o "$libc" --exclude "$memcpy" -o x.lor --ld-script x.ld --report x.txt 2>err.txt ||
  { cat err.txt >&2; fail "lorgen --exclude failed"; }
grep -q "note: [0-9]* of [0-9]* functions taken out by --include and --exclude" err.txt ||
  fail "no note on the functions taken out"
grep -qx "select exclude=$memcpy" x.lor || fail "the .LOR does not record the selection"
member=$(grep "^  fn $memcpy " a.lor | sed 's/.* object=\([^ ]*\).*/\1/')
grep -qF "object=$member" x.lor && fail "a member of $memcpy's group is still ordered"
grep -q "not movable  $memcpy .* excluded by --exclude or --include" x.txt ||
  fail "the report does not say $memcpy was excluded"
"$lorgen" script x.lor app obj/main.o "$libc" --ld-script x2.ld 2>/dev/null || fail "lorgen script on x.lor"
cmp -s x.ld x2.ld || fail "lorgen script did not reproduce the selection's script"
gcc -static obj/main.o -Wl,-T,x.ld -o app-x
./app-x >x.out
cmp -s base.out x.out || fail "the program linked with the selection prints a different result"
"$lorgen" check x.lor app-x obj/main.o "$libc" >check-x.txt 2>&1 || { grep -v '^in order' check-x.txt >&2; fail "lorgen check after --exclude"; }

step "--include keeps only what it names; a select line that takes out a listed function is an error"
"$lorgen" -q cg.out app obj/main.o "$libc" --include main.o -o i.lor
[ "$(awk '$1 == "fn" && $0 !~ /object=obj\/main.o/' i.lor | wc -l)" -eq 0 ] ||
  fail "--include main.o ordered functions of other objects"
sed 's/^select include=main.o$/select exclude=words*/' i.lor >i2.lor
grep -q "^select exclude=words\*$" i2.lor || fail "the edit did not take"
status=0
"$lorgen" script i2.lor app obj/main.o "$libc" --ld-script i2.ld 2>err.txt || status=$?
[ "$status" -eq 1 ] || fail "lorgen script exited $status on a listed function the select lines take out"
grep -q "error: function 'words.constprop.0' is taken out by the file's select lines" err.txt ||
  { cat err.txt >&2; fail "no error naming the function taken out"; }
echo "ok" >&2
