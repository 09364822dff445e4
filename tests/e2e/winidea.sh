#!/usr/bin/env bash
# End to end with winIDEA profiler exports: one generated event stream written as Text1 with a
# text timeline, XML with an XML timeline, and Text1 or XML with a binary timeline (.BIN, layouts
# 1.0 and 1.1) gives byte-identical `lorgen callgraph` output, for as much of the stream as each
# format can carry (docs/loaders/winidea.md: a v1.0 .BIN has no core, no .BIN has contexts). Then
# malformed exports: exit status and the message naming file, line, column or record.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
gen=$(dirname "$lorgen")/tests/lg_gen_winidea
[ -x "$gen" ] || { echo "skipping: $gen is not built" >&2; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# export NAME MAIN-FORMAT TIMELINE GENERATOR-OPTIONS...: writes NAME (and NAME.BIN) and its call
# graph NAME.cg.
export_and_graph() {
  local name=$1 main=$2 timeline=$3
  shift 3
  "$gen" --main "$main" --timeline "$timeline" "$@" "$name" 2>/dev/null
  "$lorgen" -q callgraph "$name" -o "$name.cg"
  [ -s "$name.cg" ] || fail "$name: empty call graph"
}

# same_graphs FIRST OTHER...: every call graph equals the first one, byte for byte.
same_graphs() {
  local first=$1
  shift
  for other in "$@"; do
    cmp -s "$first.cg" "$other.cg" || {
      diff "$first.cg" "$other.cg" | head >&2
      fail "$other gives another call graph than $first"
    }
  done
  echo "   $first and $*: $(wc -l <"$first.cg") identical edges" >&2
}

# A seed whose random program calls deep enough to give a hundred-odd edges on one core.
opts=(--functions 300 --events 60000 --seed 2)

step "one core, one context: Text1, XML, BIN 1.0 and 1.1 agree"
export_and_graph s-text.txt text1 text --cores 1 "${opts[@]}"
export_and_graph s-xml.xml xml text --cores 1 "${opts[@]}"
export_and_graph s-b10.txt text1 bin1.0 --cores 1 "${opts[@]}"
export_and_graph s-b11.txt text1 bin1.1 --cores 1 "${opts[@]}"
export_and_graph s-xb11.xml xml bin1.1 --cores 1 "${opts[@]}"
same_graphs s-text.txt s-xml.xml s-b10.txt s-b11.txt s-xb11.xml
[ "$(wc -l <s-text.txt.cg)" -gt 50 ] || fail "the generated stream has too few calls to compare"
"$lorgen" -q --bin-version 1.0 callgraph s-b10.txt -o forced.cg
cmp -s forced.cg s-b10.txt.cg || fail "--bin-version 1.0 changes the call graph of a 1.0 file"

step "three cores: Text1 (%CORE%), XML and BIN 1.1 agree"
export_and_graph m-text.txt text1 text --cores 3 "${opts[@]}"
export_and_graph m-xml.xml xml text --cores 3 "${opts[@]}"
export_and_graph m-b11.txt text1 bin1.1 --cores 3 "${opts[@]}"
same_graphs m-text.txt m-xml.xml m-b11.txt
# A 1.0 file has no core: the cores' calls interleave on one stack and are repaired.
export_and_graph m-b10.txt text1 bin1.0 --cores 3 "${opts[@]}"
cmp -s m-text.txt.cg m-b10.txt.cg && fail "a 1.0 file cannot tell three cores apart"

step "two cores with three tasks each: Text1 (%CORE%,%CONTEXT%) and XML agree"
export_and_graph c-text.txt text1 text --cores 2 --contexts 3 "${opts[@]}"
export_and_graph c-xml.xml xml text --cores 2 --contexts 3 "${opts[@]}"
same_graphs c-text.txt c-xml.xml
"$lorgen" callgraph c-text.txt -o /dev/null 2>err.txt
[ ! -s err.txt ] || { cat err.txt >&2; fail "a well-formed timeline gave messages"; }

step "a timeline cut at the end: the same repairs in every format, one warning"
export_and_graph t-text.txt text1 text --cores 2 --cut "${opts[@]}"
export_and_graph t-xml.xml xml text --cores 2 --cut "${opts[@]}"
export_and_graph t-b11.txt text1 bin1.1 --cores 2 --cut "${opts[@]}"
same_graphs t-text.txt t-xml.xml t-b11.txt
"$lorgen" callgraph t-xml.xml -o /dev/null 2>err.txt
[ "$(grep -c warning err.txt)" -eq 1 ] || { cat err.txt >&2; fail "expected one warning"; }
grep -q "t-xml.xml" err.txt || fail "the warning does not name the file"

step "statistics only: hits and times, no call graph"
"$gen" --main text1 --timeline none --functions 50 none.txt 2>/dev/null
cat >>none.txt <<'EOF'
* STATISTICS(Functions) %HANDLE%,%COUNT%,%T.NET%
00000010,12,340
EOF
"$lorgen" callgraph none.txt -o none.cg 2>err.txt
[ ! -s none.cg ] || fail "statistics made call edges"
grep -q "without call information" err.txt || fail "no note that statistics have no calls"

step "formats and usage"
"$lorgen" formats | grep -q "winidea-text1" || fail "lorgen formats lacks winidea-text1"
"$lorgen" formats | grep -q "winidea-xml" || fail "lorgen formats lacks winidea-xml"
# Whole, then searched: grep -q stops reading at the first match, and under pipefail the
# writer's broken pipe would fail the step.
"$lorgen" --help >help.txt
grep -q -- "--bin-version" help.txt || fail "--help lacks --bin-version"
expect 2 "--bin-version: expected 1.0 or 1.1, found '2'" -- --bin-version 2 callgraph s-b11.txt -o x.cg

step "malformed exports: exit 1, the place and what was expected"
sed 's/^\* TIMELINE %HANDLE%,%EVENT%/* TIMELINE %HANDLE%,%EVNT%/' s-text.txt >bad-macro.txt
line=$(grep -n '^\* TIMELINE' bad-macro.txt | cut -d: -f1)
expect 1 "bad-macro.txt:$line:21: error: unknown macro %EVNT% in the TIMELINE header" -- \
  callgraph bad-macro.txt -o x.cg
[ ! -e x.cg ] || fail "a failed run wrote the call graph"

sed '/^\* TIMELINE/{n;s/^[0-9A-F]*,/0ABCDEF0,/}' s-text.txt >bad-handle.txt
line=$(( $(grep -n '^\* TIMELINE' bad-handle.txt | cut -d: -f1) + 1 ))
expect 1 "bad-handle.txt:$line:1: error: handle 0x0ABCDEF0 is not in the mapping" -- \
  callgraph bad-handle.txt -o x.cg

# Helper 292 (0x124), called from everywhere, and its lines left out of the mapping.
grep -v -e '^00000124,' -e ',00000124,' s-b11.txt >bad-bin.txt
cp s-b11.txt.BIN bad-bin.txt.BIN
expect 1 "bad-bin.txt.BIN:0x" -- callgraph bad-bin.txt -o x.cg
grep -q "0x00000124" err.txt || { cat err.txt >&2; fail "the error does not name the handle"; }

head -c 2000 s-xml.xml >cut.xml
expect 1 "cut.xml:" -- callgraph cut.xml -o x.cg
grep -q "found its end with [0-9]* element(s) open: the file is cut short (byte 2000)" err.txt ||
  fail "no message that the XML is cut short"

sed 's#</NAME></AREA>#</NAME></AERA>#' s-xml.xml >mismatch.xml
expect 1 "mismatch.xml:4:" -- callgraph mismatch.xml -o x.cg
grep -q "mismatched tag" err.txt || fail "no mismatched tag"

cp s-text.txt both.txt
cp s-b11.txt.BIN both.txt.BIN
expect 1 "expected no text TIMELINE entries next to the binary timeline both.txt.BIN" -- \
  callgraph both.txt -o x.cg

head -c 1000 s-b11.txt.BIN >short.txt.BIN
cp s-b11.txt short.txt
expect 1 "short.txt.BIN" -- callgraph short.txt -o x.cg
echo "winidea: ok" >&2
