#!/usr/bin/env bash
# The report outputs on a fixed fixture (tests/fixtures/report: a kept ELF and a hand-written
# callgrind profile): the text and JSON reports must match the golden files byte for byte and be
# the same on a second run; the JSON must parse; the call graph exports must be well-formed.
# LORGEN_UPDATE_GOLDEN=1 rewrites the golden files from this build instead of comparing.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work"
fixture=$src/tests/fixtures/report
# Geometry small enough for several cliques, a filler clique and padding (the cliques pass and
# its placement show every part of the report); -n 3 caps the tables.
# --no-safeguard: the model predicts this small cache to miss more with the cliques than with the
# fixture's own order, and the clique tables are what this test reads.
args=(prog.callgrind prog.elf --algorithm cliques --cache-size 512 --line-size 16 -n 3
  --no-safeguard)

step "reports from the fixture"
for run in 1 2; do
  (cd "$fixture" && "$lorgen" -q "${args[@]}" --report "$work/report$run.txt" \
    --report-json "$work/report$run.json" --report-html "$work/report$run.html")
done
for ext in txt json html; do
  cmp -s "$work/report1.$ext" "$work/report2.$ext" || fail "the $ext report differs between two runs"
done

if [ "${LORGEN_UPDATE_GOLDEN:-}" = 1 ]; then
  cp "$work/report1.txt" "$fixture/expected.txt"
  cp "$work/report1.json" "$fixture/expected.json"
  echo "report: golden files rewritten" >&2
  exit 0
fi
for ext in txt json; do
  if ! cmp -s "$fixture/expected.$ext" "$work/report1.$ext"; then
    diff -u "$fixture/expected.$ext" "$work/report1.$ext" >&2 || true
    fail "the $ext report differs from tests/fixtures/report/expected.$ext" \
      "(LORGEN_UPDATE_GOLDEN=1 rewrites it once the change is intended)"
  fi
done

if have python3; then
  step "the JSON parses and has the documented schema version"
  python3 - "$work/report1.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
assert doc["schema"] == "lorgen-report" and doc["schema_version"] == 2, doc.get("schema_version")
assert sum(c["weight"] for c in doc["cliques"]) == doc["summary"]["weight"]["total"]
s = doc["summary"]
assert sum(len(c["functions"]) for c in doc["cliques"]) == s["hot_functions"] + s["filler_functions"]
total = sum(c["hits"] for c in doc["cliques"])
assert total == doc["summary"]["total_hits"], (total, doc["summary"]["total_hits"])
for c in doc["cliques"]:
    assert sum(f["hits"] for f in c["functions"]) == c["hits"]
PY
fi

step "call graph as DOT and GraphML"
(cd "$fixture" && "$lorgen" callgraph -q prog.callgrind prog.elf --dot "$work/cg.dot" \
  --graphml "$work/cg.graphml")
grep -q '^digraph {' "$work/cg.dot" || fail "cg.dot: not a directed DOT graph"
grep -q 'label=render_glyph' "$work/cg.dot" || fail "cg.dot: function names missing"
[ "$(grep -c -- ' -> ' "$work/cg.dot")" -eq 15 ] || fail "cg.dot: expected the 15 bound calls"
if have dot; then
  dot -Tsvg "$work/cg.dot" -o "$work/cg.svg" || fail "Graphviz cannot read cg.dot"
fi
if have python3; then
  python3 - "$work/cg.graphml" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
root = ET.parse(sys.argv[1]).getroot()
nodes = root.findall(".//g:node", ns)
edges = root.findall(".//g:edge", ns)
assert len(nodes) == 14 and len(edges) == 15, (len(nodes), len(edges))
weights = {(e.get("source"), e.get("target")): float(e.find("g:data[@key='weight']", ns).text)
           for e in edges}
assert max(weights.values()) == 5400.0, weights
PY
fi
# Profiles alone: names as profiled, the unbound one included (its quotes escaped).
(cd "$fixture" && "$lorgen" callgraph -q prog.callgrind --dot "$work/profile.dot")
grep -qF 'label="operator<< \"quoted\""' "$work/profile.dot" ||
  fail "profile.dot: the quoted name is not escaped as DOT wants"
echo "report: ok" >&2
