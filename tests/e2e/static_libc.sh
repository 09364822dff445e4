#!/usr/bin/env bash
# End to end: a static glibc program ordered with its objects and libc.a. A C library function
# whose input section's name other members share (.text.sse4.2, .text.avx) is written with its
# archive member, never as a bare section name that would pull the other members' code in; the
# archive's members without a symbol table are one note, not a warning each; a member's section
# that holds several functions (memcpy's) is ordered as a fixed group; statics inside archive
# members bind; a function the link took from another file (crt1.o's _dl_relocate_static_pie) is
# not bound to libc.a's; and lorgen check passes on the relinked program.
# lld links it as well, from lorgen's lld list: the program prints the same, lorgen check passes,
# and the hot C library groups (memcpy's, strcspn's) land beside their callers, as after GNU ld.
# lld makes the hidden globals of libc.a local (__getrandom, __strdup), files the statics of
# members without an STT_FILE under an earlier object's file, and moves strcmp (an IFUNC whose
# address the program takes) to its PLT entry: none of that may lose a function. Ordered from
# an lld link, the same holds. gold names sections only: it cannot name a member's section
# (.text, or .text.avx that many members have), so it links the program's own order only.
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

# runs_and_checks LOR ELF WHAT: ELF prints what the plain program printed (base.out), and lorgen
# check finds every function of LOR where it was asked.
runs_and_checks() {
  local lor=$1 elf=$2 what=$3
  "./$elf" >"$elf.out"
  cmp -s base.out "$elf.out" || fail "$what prints a different result"
  "$lorgen" check "$lor" "$elf" obj/main.o "$libc" >"check-$elf.txt" 2>&1 ||
    { grep -v '^in order' "check-$elf.txt" >&2; fail "lorgen check of $what"; }
}

step "the relinked program runs, and lorgen check finds every function where it was asked"
gcc -static obj/main.o -Wl,-T,a.ld -o app-ordered
runs_and_checks a.lor app-ordered "the relinked program"

# gap ELF CALLER NAME...: bytes between CALLER's code and the code the NAMEs span (0 when they
# overlap); -1 when one is missing.
gap() {
  local elf=$1 caller=$2
  shift 2
  nm -S --radix=d --defined-only "$elf" | awk -v caller="$caller" -v names="$*" '
    BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
    NF == 4 && $4 == caller { cs = $1 + 0; ce = cs + $2; c = 1 }
    NF == 4 && ($4 in want) {
      s = $1 + 0; e = s + $2
      if (!g || s < gs) gs = s
      if (!g || e > ge) ge = e
      g = 1
    }
    END { if (!c || !g) print -1; else if (cs >= ge) print cs - ge; else if (gs >= ce) print gs - ce; else print 0 }'
}
group_of() { # the members of the fixed group the .LOR lists NAME in, or NAME alone
  local g
  g=$(awk -v n="$1" '$1 == "fn" && $2 == n { for (i = 3; i <= NF; i++) if ($i ~ /^group=/) print $i }' a.lor | head -1)
  if [ -n "$g" ]; then awk -v g="$g" '$1 == "fn" { for (i = 3; i <= NF; i++) if ($i == g) print $2 }' a.lor
  else echo "$1"; fi
}
strcspn=$(sed -n 's/^words\.constprop\.0 \(__strcspn[a-z_0-9]*\) [0-9]*$/\1/p' cg.txt | head -1)
[ -n "$strcspn" ] || fail "callgrind should see words call a strcspn variant"
memcpy_group=$(group_of "$memcpy" | tr '\n' ' ')
# beside ELF: the hot C library code sits next to the program function that calls it, closer
# than GAP_BYTES (the alignment padding of a section), where the plain link has it far away.
GAP_BYTES=64
beside() {
  local elf=$1 at
  # shellcheck disable=SC2086 # the group's names are words on purpose
  at=$(gap "$elf" main $memcpy_group)
  [ "$at" -ge 0 ] && [ "$at" -lt "$GAP_BYTES" ] ||
    fail "$elf: $memcpy's group ($memcpy_group) is $at bytes from main, which calls it"
  at=$(gap "$elf" words.constprop.0 "$strcspn")
  [ "$at" -ge 0 ] && [ "$at" -lt "$GAP_BYTES" ] ||
    fail "$elf: $strcspn is $at bytes from words.constprop.0, which calls it"
}
# shellcheck disable=SC2086
[ "$(gap app main $memcpy_group)" -gt 4096 ] || fail "the plain link already has $memcpy beside main"
beside app-ordered

step "lld: linked from lorgen's lld list, it runs, lorgen check passes, libc's hot code is beside its callers"
if have ld.lld; then
  "$lorgen" -q cg.out app obj/main.o "$libc" -o l.lor --lld a.lld
  cmp -s a.lor l.lor || fail "the .LOR changed when the lld list was asked for too"
  "$lorgen" script a.lor app obj/main.o "$libc" --lld a2.lld 2>/dev/null || fail "lorgen script --lld"
  cmp -s a.lld a2.lld || fail "lorgen script wrote another lld list than the optimizing run"
  # strcmp is an IFUNC whose address libc takes: lld names its PLT entry strcmp, and only
  # strcmp_ifunc still names the resolver's code.
  if grep -q '^  fn strcmp ' a.lor && nm app | grep -q ' strcmp_ifunc$'; then
    grep -qx strcmp_ifunc a.lld || fail "the lld list does not name strcmp's resolver by strcmp_ifunc"
  fi
  gcc -static -fuse-ld=lld obj/main.o -Wl,--symbol-ordering-file,a.lld -o app-lld 2>lld.err ||
    { cat lld.err >&2; fail "lld failed"; }
  [ ! -s lld.err ] || { cat lld.err >&2; fail "lld warned about the list (a name it does not know?)"; }
  runs_and_checks a.lor app-lld "the program linked by lld"
  beside app-lld

  step "ordered from an lld link: statics keep their members, _dl_relocate_static_pie is crt1.o's"
  gcc -static -fuse-ld=lld obj/main.o -o plain-lld
  ./plain-lld >plain-lld.out
  cmp -s base.out plain-lld.out || fail "the plain lld link prints a different result"
  valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg-lld.out ./plain-lld \
    >/dev/null 2>vg-lld.txt || { cat vg-lld.txt >&2; fail "callgrind failed on the lld link"; }
  "$lorgen" -q -n 0 cg-lld.out plain-lld obj/main.o "$libc" -o p.lor --lld p.lld --report p.txt ||
    fail "lorgen on the lld link"
  # A static of a libc.a member is filed under its member, as GNU ld names it.
  bad=$(awk '$1 == "fn" && /object=[^ ]*libc\.a\(/ && / source=/ {
               m = $0; sub(/.*libc\.a\(/, "", m); sub(/\).*/, "", m)
               s = $0; sub(/.* source=/, "", s); sub(/ .*/, "", s)
               if (s != m) print $2 " source=" s " in " m }' p.lor)
  [ -z "$bad" ] || fail "statics of libc.a filed under another file: $bad"
  grep -q '^  fn [^ ]* .*libc\.a(.* local' p.lor || fail "no static of libc.a is ordered from the lld link"
  grep -q 'fn _dl_relocate_static_pie .*dl-reloc-static-pie' p.lor &&
    fail "_dl_relocate_static_pie (crt1.o's 1-byte copy) was bound to libc.a's member"
  grep -q "not movable  _dl_relocate_static_pie .* defined in none of the object files given" p.txt ||
    { grep _dl_relocate_static_pie p.txt >&2; fail "the report does not say _dl_relocate_static_pie is from no object given"; }
  gcc -static -fuse-ld=lld obj/main.o -Wl,--symbol-ordering-file,p.lld -o p-lld 2>p-lld.err ||
    { cat p-lld.err >&2; fail "lld failed on the order made from the lld link"; }
  [ ! -s p-lld.err ] || { cat p-lld.err >&2; fail "lld warned about the list made from the lld link"; }
  runs_and_checks p.lor p-lld "the program ordered from the lld link"
else
  echo "   lld is not installed: its links are not checked" >&2
fi

step "_dl_relocate_static_pie binds to crt1.o's copy when crt1.o is given"
crt1=$(gcc -print-file-name=crt1.o)
if [ -f "$crt1" ]; then
  "$lorgen" -q -n 0 cg.out app obj/main.o "$crt1" "$libc" -o c.lor --report c.txt
  grep -q "not movable  _dl_relocate_static_pie .* \.text: shares its input section" c.txt ||
    { grep _dl_relocate_static_pie c.txt >&2; fail "_dl_relocate_static_pie is not crt1.o's .text"; }
fi

step "gold: its list names no section other members share; the program's own order links and checks"
if have ld.gold; then
  "$lorgen" script a.lor app obj/main.o "$libc" --gold a.gold 2>/dev/null
  shared=$(comm -12 <(sort -u a.gold) shared-names.txt)
  [ -z "$shared" ] || fail "the gold list names sections many libc.a members have: $shared"
  gcc -static -fuse-ld=gold obj/main.o -Wl,--section-ordering-file,a.gold -o app-gold
  ./app-gold >gold.out
  cmp -s base.out gold.out || fail "the program linked by gold prints a different result"
  "$lorgen" -q cg.out app obj/main.o "$libc" --include main.o -o g.lor --gold g.gold
  gcc -static -fuse-ld=gold obj/main.o -Wl,--section-ordering-file,g.gold -o g-gold
  runs_and_checks g.lor g-gold "the program linked by gold from g.gold"
else
  echo "   gold is not installed: its links are not checked" >&2
fi
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
runs_and_checks x.lor app-x "the program linked with the selection"

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
