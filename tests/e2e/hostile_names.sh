#!/usr/bin/env bash
# End to end: names that reach a linker (issue 13, items 1, 2, 3 and 6). Section names, symbol
# names and object paths made to break a linker script are written so that each linker reads
# exactly that name, proven by linking with GNU ld, gold and lld:
#   injection    a section name that closes the pattern and assigns a symbol, one that INCLUDEs
#                another script, one that closes a comment: nothing is defined or included
#   wildcards    names with * ? [ and a backslash match their own section and no cold neighbour
#                (.text.q?x beside .text.qZx)
#   unsayable    a '"' (GNU ld), a newline (gold), a leading '#' or blank (lld): left out of that
#                linker's file with a warning, the others still order it
#   objects      a/util.o beside b/util.o, a directory with '(' and one holding script text, a
#                thin archive: each static helper is taken from its own object only
#   long names   a 100,000-byte symbol: the .LOR lorgen writes, lorgen script reads back
# Each relink is read back by `lorgen check` (exit 0: in order, nothing between).
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# A script that, if ld ever read it, would define this symbol.
echo 'evil_included = 0x1337;' >evil.ld

# no_injection ELF: neither the injected assignment nor the included script took effect.
no_injection() {
  ! nm "$1" | grep -q 'injected_by_lorgen\|evil_included' ||
    fail "$1: a section name injected a symbol"
}

# relink NAME LOR OBJECTS... -- LINK-FLAGS...: links silently, runs, and `lorgen check` says every
# function of LOR landed in order with nothing between.
relink() {
  local name=$1 lor=$2 objs=() flags=()
  shift 2
  while [ "$1" != -- ]; do objs+=("$1"); shift; done
  shift
  flags=("$@")
  gcc "${objs[@]}" "${flags[@]}" -o "app-$name" 2>"$name.link.err" ||
    { cat "$name.link.err" >&2; fail "$name: the link failed"; }
  [ ! -s "$name.link.err" ] || { cat "$name.link.err" >&2; fail "$name: the linker warned"; }
  ./"app-$name" || fail "$name: the relinked program failed"
  no_injection "app-$name"
  "$lorgen" check "$lor" "app-$name" "${objs[@]}" >"$name.check" ||
    { cat "$name.check" >&2; fail "$name: lorgen check says the order did not take effect"; }
}

step "a program whose sections and symbols have hostile names"
# fn SYMBOL SECTION: a 4-byte function alone in its section (assembler string escapes in both).
fn() {
  printf '\t.section "%s","ax",@progbits\n\t.globl "%s"\n\t.type "%s",@function\n' "$2" "$1" "$1"
  printf '"%s":\n\tnop\n\tnop\n\tnop\n\tret\n\t.size "%s",.-"%s"\n' "$1" "$1" "$1"
}
hot_sections=(
  'h_inject|.text.x) injected_by_lorgen = 0x1337; *(.y'
  'h_include|.text.x) } INCLUDE evil.ld .junk : { *(.y'
  'h_comment|.text.c */ x /* c'
  'h_qx|.text.q?x'
  'h_brk|.text.brk[ab]?'
  'h_star|.text.st*r'
  'h_bs|.text.b\\s?'
  'h_space|.text.sp ace'
  'h_tab|.text.t\tb'
  'h_cr|.text.cr\r'
  'h_nl|.text.nl\nx'
  'h_quote|.text.q\"t'
)
# Cold neighbours that an unescaped pattern of a hot name above would take along.
cold_sections=('c_qzx|.text.qZx' 'c_brk|.text.brkaZ' 'c_star|.text.stXr' 'c_bs|.text.bsQ')
hot_symbols=('sp ace' 'mid#x' 'st*r' '#hash' ' lead')
{
  for entry in "${hot_sections[@]}" "${cold_sections[@]}"; do fn "${entry%%|*}" "${entry#*|}"; done
  n=0
  for sym in "${hot_symbols[@]}" 'stXr'; do fn "$sym" ".text.sym$((n += 1))"; done
  # call_all: calls every hot function (the assembler takes quoted names as operands).
  printf '\t.text\n\t.globl call_all\n\t.type call_all,@function\ncall_all:\n\tsubq $8, %%rsp\n'
  for entry in "${hot_sections[@]}"; do printf '\tcall "%s"\n' "${entry%%|*}"; done
  for sym in "${hot_symbols[@]}"; do printf '\tcall "%s"\n' "$sym"; done
  printf '\taddq $8, %%rsp\n\tret\n\t.size call_all,.-call_all\n'
  printf '\t.section .note.GNU-stack,"",@progbits\n'
} >hostile.s
printf 'void call_all(void);\nint main(void) { call_all(); return 0; }\n' >main.c
gcc -c hostile.s -o hostile.o
gcc -O2 -c main.c -o main.o
gcc main.o hostile.o -o app
./app

# The .LOR lists every hot function, in this order; names that need it are quoted.
{
  printf 'lorgen-lor 1\nclique 1\n'
  for entry in "${hot_sections[@]}"; do printf '  fn %s\n' "${entry%%|*}"; done
  printf '  fn "sp ace"\n  fn mid#x\n  fn st*r\n  fn "#hash"\n  fn " lead"\n'
} >all.lor

step "lorgen script: every output at once, unsayable names left out with a warning"
"$lorgen" script all.lor app main.o hostile.o --ld-script s.ld --ld-include s-order.ld \
  --section-ordering s.ord --gold s.gold --lld s.lld -o back.lor 2>script.err
cat script.err >&2
grep -q "'h_quote' is left out of the GNU ld script: its section name '.text.q\"t' holds a '\"'" \
  script.err || fail "no warning that GNU ld cannot name a section holding '\"'"
grep -q "'h_nl' is left out of the gold list: its section name '.text.nl\\\\nx' holds a newline" \
  script.err || fail "no warning that gold cannot name a section holding a newline"
for sym in '#hash' ' lead'; do
  grep -q "'$sym' is left out of the lld list" script.err ||
    fail "no warning that lld cannot name '$sym'"
done
! grep -q 'q"t' s.ld s-order.ld s.ord || fail "a name GNU ld cannot read reached its script"
! grep -q '^#\|^ ' s.lld || fail "a name lld cannot read reached its list"
grep -qx 'sp ace' s.lld || fail "lld's list lacks a symbol with a space inside"
grep -q 'INCLUDE evil.ld' s.ld || fail "the hostile section name is missing from the script"
"$lorgen" -q script back.lor app main.o hostile.o --ld-script back.ld
cmp s.ld back.ld || fail "the .LOR written back gives another script"

# Per linker, the .LOR of the functions it can name: all of them must land in order.
grep -v 'h_quote' all.lor >ld.lor
grep -v 'h_nl' all.lor >gold.lor
grep -v '"#hash"\|" lead"' all.lor >lld.lor

step "GNU ld: -T script"
"$lorgen" script ld.lor app main.o hostile.o --ld-script ld.ld --ld-include ld-order.ld 2>ld.err
[ ! -s ld.err ] || { cat ld.err >&2; fail "lorgen warned about names GNU ld can read"; }
relink ld ld.lor main.o hostile.o -- -Wl,-T,ld.ld
step "GNU ld: the --ld-include fragment INCLUDEd by a script"
printf 'SECTIONS\n{\n  .text.lorgen :\n  {\n    INCLUDE ld-order.ld\n  }\n}\n' >board.ld
echo 'INSERT BEFORE .text;' >>board.ld
relink include ld.lor main.o hostile.o -- -Wl,-T,board.ld
if ld --help | grep -q -- '--section-ordering-file'; then
  step "GNU ld: --section-ordering-file"
  "$lorgen" -q script ld.lor app main.o hostile.o --section-ordering ld.ord
  relink ord ld.lor main.o hostile.o -- -Wl,--section-ordering-file,ld.ord
fi

if have ld.gold; then
  step "gold: --section-ordering-file"
  "$lorgen" script gold.lor app main.o hostile.o --gold gold.list 2>gold.err
  [ ! -s gold.err ] || { cat gold.err >&2; fail "lorgen warned about names gold can read"; }
  relink gold gold.lor main.o hostile.o -- -fuse-ld=gold -Wl,--section-ordering-file,gold.list
fi

if have ld.lld; then
  step "lld: --symbol-ordering-file"
  "$lorgen" script lld.lor app main.o hostile.o --lld lld.list 2>lld.err
  [ ! -s lld.err ] || { cat lld.err >&2; fail "lorgen warned about names lld can read"; }
  relink lld lld.lor main.o hostile.o -- -fuse-ld=lld -Wl,--symbol-ordering-file,lld.list
fi

step "a hand-edited section= reaches the script through lorgen script, and cannot inject"
# With the linked program alone, lorgen takes the section from the .LOR as written.
printf 'lorgen-lor 1\nclique 1\n  fn h_inject section="%s"\n  fn h_include section="%s"\n' \
  '.text.x) injected_by_lorgen = 0x1337; *(.y' '.text.x) } INCLUDE evil.ld .junk : { *(.y' >hand.lor
"$lorgen" -q script hand.lor app --ld-script hand.ld
relink hand hand.lor main.o hostile.o -- -Wl,-T,hand.ld

step "same-named objects and odd paths: each static is taken from its own object"
# Four util.o with a static helper() each; the helpers of a, c(1) and the script-named directory
# are hot, b's is cold and must stay out of the ordered block.
odd='x) } INCLUDE evil.ld .junk : { *(.y'
dirs=(a b 'c(1)' "$odd")
i=0
for d in "${dirs[@]}"; do
  mkdir -p "$d"
  i=$((i + 1))
  printf '__attribute__((noinline)) static int helper(int x) { return x * %d + 1; }\n' \
    $((i + 2)) >"$d/u.c"
  printf 'int entry_%d(int x) { return helper(x) + %d; }\n' $i $i >>"$d/u.c"
  gcc -O2 -ffunction-sections -c "$d/u.c" -o "$d/util.o"
done
# A thin archive ("ar T") of two more, in subdirectories: ld names its members by path.
mkdir -p thin/t1 thin/t2
for t in 1 2; do
  printf '__attribute__((noinline)) static int helper(int x) { return x * %d + 7; }\n' \
    $((t + 10)) >thin/t$t/u.c
  printf 'int thin_%d(int x) { return helper(x) + %d; }\n' $t $t >>thin/t$t/u.c
  gcc -O2 -ffunction-sections -c thin/t$t/u.c -o thin/t$t/util.o
done
ar rcT thin/libthin.a thin/t1/util.o thin/t2/util.o
head -c 8 thin/libthin.a | grep -q '!<thin>' || fail "ar did not make a thin archive"
cat >calls.c <<'EOF'
int entry_1(int), entry_2(int), entry_3(int), entry_4(int), thin_1(int), thin_2(int);
int main(int c, char **v) { (void)v; return (entry_1(c) + entry_2(c) + entry_3(c) +
    entry_4(c) + thin_1(c) + thin_2(c)) == 12345; }
EOF
gcc -O2 -c calls.c -o calls.o
objs=(calls.o a/util.o b/util.o 'c(1)/util.o' "$odd/util.o" thin/libthin.a)
gcc "${objs[@]}" -o app-objs
./app-objs || fail "the program with four util.o failed"
# Every listed helper but b's, each named by its object.
{
  printf 'lorgen-lor 1\nclique 1\n'
  printf '  fn helper object=a/util.o\n  fn entry_1\n'
  printf '  fn helper object="c(1)/util.o"\n  fn entry_3\n'
  printf '  fn helper object="%s/util.o"\n  fn entry_4\n' "$odd"
  printf '  fn helper object="thin/libthin.a(thin/t1/util.o)"\n  fn thin_1\n'
} >objs.lor
"$lorgen" script objs.lor app-objs "${objs[@]}" --ld-script objs.ld 2>objs.err
[ ! -s objs.err ] || { cat objs.err >&2; fail "lorgen warned about the objects"; }
cat objs.ld >&2
grep -qF '":*a/util.o"' objs.ld || grep -qF ':*a/util.o(' objs.ld ||
  fail "a/util.o is not named apart from b/util.o"
gcc "${objs[@]}" -Wl,-T,objs.ld -Wl,-Map,objs.map -o app-objs-ordered 2>objs.link.err
[ ! -s objs.link.err ] || { cat objs.link.err >&2; fail "objs: the linker warned"; }
./app-objs-ordered || fail "objs: the relinked program failed"
no_injection app-objs-ordered
# The link map says which object each input section came from (lorgen check tells same-named
# statics apart by base name only, and all four are util.o): the ordered block holds exactly
# the listed sections, in order, and b's cold helper is not among them.
sed -n '/^\.text\.lorgen/,/^\.text /p' objs.map |
  awk '/^ \.text\./ && NF >= 4 {
         name = $1; sub(/^ *[^ ]+ +0x[0-9a-f]+ +0x[0-9a-f]+ /, ""); print name " " $0 }' \
  >ordered.txt
cat >expected.txt <<EOF
.text.helper a/util.o
.text.entry_1 a/util.o
.text.helper c(1)/util.o
.text.entry_3 c(1)/util.o
.text.helper $odd/util.o
.text.entry_4 $odd/util.o
.text.helper thin/t1/util.o
.text.thin_1 thin/t1/util.o
EOF
diff expected.txt ordered.txt >&2 ||
  fail "objs: the ordered block is not the listed sections of their own objects"

step "a 100,000-byte symbol name: the .LOR lorgen writes, lorgen script reads back"
long=$(head -c 100000 /dev/zero | tr '\0' L)
printf '__attribute__((noinline)) int longfn(int x) __asm__("%s");\n' "$long" >long.c
printf '__attribute__((noinline)) int longfn(int x) { return x * 7 + 1; }\n' >>long.c
printf '__attribute__((noinline)) int other(int x) { return x * 5 + 3; }\n' >>long.c
printf 'int main(int c, char **v) { (void)v; int s = 0;\n' >>long.c
printf '  for (int i = 0; i < 1000; i++) s += longfn(c + i) + other(i); return s == 1; }\n' >>long.c
gcc -O2 -ffunction-sections -c long.c -o long.o
gcc long.o -o long
# A callgrind profile written by hand: main calls both 1000 times.
cat >long.callgrind <<EOF
version: 1
creator: tests/e2e/hostile_names.sh (by hand)
pid: 1
cmd: ./long
part: 1

positions: line
events: Ir
fl=(1) long.c
fn=(1) main
4 9000
cfn=(2) $long
calls=1000 2
4 7000
cfn=(3) other
calls=1000 3
4 6000
fn=(2)
2 7000
fn=(3)
3 6000

summary: 22000
totals: 22000
EOF
"$lorgen" -q long.callgrind long long.o -o long.lor --ld-script long.ld
# A literal search: grep takes the 1 MB name as a pattern and spends a minute of CPU on it.
awk -v s="$long" 'index($0, s) { f = 1 } END { exit !f }' long.ld || fail "the long name is not in the script"
"$lorgen" script long.lor long long.o --ld-script long-back.ld ||
  fail "lorgen script cannot read the .LOR lorgen wrote"
cmp long.ld long-back.ld || fail "the .LOR read back gives another script"
gcc long.o -Wl,-T,long.ld -o long-ordered
"$lorgen" check long.lor long-ordered long.o >long.check ||
  { cat long.check >&2; fail "the long-named function did not land in order"; }
echo "hostile names: ok" >&2
