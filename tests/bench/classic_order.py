#!/usr/bin/env python3
"""Classic link orders for tests/bench/real_programs.sh, written without lorgen's code.

    classic_order.py ph  --callgraph CG --elf ELF --callgrind PROFILE... --objects OBJ... -o LD
    classic_order.py hot --elf ELF --callgrind PROFILE... --objects OBJ... -o LD
    classic_order.py cdsort --callgraph CG --elf ELF --callgrind PROFILE... --objects OBJ... -o LD

ph:  plain Pettis-Hansen ("Profile guided code positioning", 1990) on the call counts of CG,
     lines "caller callee count" as `lorgen callgraph` writes them (a cold part's calls count as
     its function's; functions that cannot be placed are left out). The graph is undirected:
     weight(A, B) = calls A->B + calls B->A; self calls are ignored. Every function starts as a
     chain of its own. The heaviest edge joins its two chains; of the four ways to put them end
     to end (A B, A reversed(B), reversed(A) B, B A), the one whose junction holds the heaviest
     edge of the original graph is taken (the first of those on a tie). The two chains' edges to
     every other chain are summed into one. This repeats until no edge is left; the chains are
     then written heaviest first (by the summed weight of the edges joined into them, or by that
     weight per byte with --chain-order density).
hot: hot-first: every function that ran, by its self instructions per byte (callgrind's Ir at
     the function's own addresses), densest first.
cdsort: cache-directed sort, lld's default call-graph sort since LLVM 18 (D152833, D152840), as
     its published description states it, with its default parameters, on the call counts of
     CG (the graph directed this time; self calls ignored). A function's count is the larger of
     the calls into it and out of it. Every function starts as a chain of its own; two chains
     with calls between them may be put end to end (X then Y, or Y then X, never split), and
     the merge with the largest positive gain is made until none is left:
       gain = dist_gain + FREQ_SCALE * freq_gain, divided by min(bytes(X), bytes(Y)) when >= 0
       dist_gain = sum over the calls between X and Y of count * (d**-DIST_POWER -
                   total_bytes**-DIST_POWER), d the distance from the middle of the caller to the
                   callee's start (0 counts as 0.1)
       freq_gain = score(X) + score(Y) - score(X then Y), score(C) = count(C) * miss(density),
                   miss(density) = (1 - density * PAGE_BYTES / total_count) ** PAGE_ENTRIES
                   (0 when the base reaches 0): the chance a page of C is not among the last
                   PAGE_ENTRIES pages touched, if pages were touched at random by their counts
     A chain holds at most MAX_CHAIN_FUNCTIONS functions. The chains are written densest first
     (count per byte), ties by input order, as are the two ways of a merge.

Placement, for all three: the ordered functions go to an output section inserted before .text, so
they come first and everything else keeps GNU ld's default order:
    SECTIONS { .text.classic : { */obj.o(.text.f) ... } } INSERT BEFORE .text;
Each pattern names the object, since static functions of the same name live in several objects.
A function's input section is where its symbol is defined in its object (readelf); functions
that share their section with other functions (built without -ffunction-sections) are left
out, and so are GCC's cold parts (f.cold, in .text.unlikely.f): they are not hot code.

The callgrind profiles (--dump-instr=yes, of the ELF given) tell statics of the same name apart:
each instruction's cost is charged to the ELF symbol whose address range holds it, and that
symbol to its object by name and, for a static, the source file (the STT_FILE symbol before it
in both symbol tables; a global of hidden visibility is local in the ELF, under an empty
STT_FILE, and is matched to the global of that name). For ph, a call-graph name that several
objects define stands for the copies that ran, hottest first.

Only the Python standard library and binutils' readelf are used.
"""

import argparse
import bisect
import heapq
import os
import re
import subprocess
import sys

COLD_PART = re.compile(r"\.cold(\.\d+)?$")

# cdsort's parameters: LLVM's defaults (CDSortConfig in llvm/Transforms/Utils/CodeLayout.h).
PAGE_ENTRIES = 16          # pages the modelled cache holds
PAGE_BYTES = 2048          # bytes of one page
DIST_POWER = 0.25          # how fast a call's worth falls with its distance
FREQ_SCALE = 0.25          # weight of the page model against the distance term
MAX_CHAIN_FUNCTIONS = 128  # functions in one chain, at most
ZERO_DISTANCE = 0.1        # bytes a distance of 0 counts as (0 ** -DIST_POWER is infinite)


def readelf(flag, path):
    return subprocess.run(["readelf", flag, "-W", path], check=True, capture_output=True,
                          text=True).stdout


def number(text):
    """readelf prints sizes in decimal, large ones in hex with 0x."""
    return int(text, 16) if text.startswith("0x") else int(text)


def section_names(path):
    names = {}
    for line in readelf("-S", path).splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s(.*)$", line)
        if m and int(m.group(1)) > 0:
            names[int(m.group(1))] = m.group(2).split()[0]
    return names


def symbols(path):
    """The .symtab's symbols as (value, size, type, bind, ndx, name, file), file being the name
    of the last STT_FILE symbol before it (the source file of a static)."""
    out = []
    in_symtab = False
    file = None
    for line in readelf("-s", path).splitlines():
        if line.startswith("Symbol table"):
            in_symtab = "'.symtab'" in line
            file = None
            continue
        if not in_symtab:
            continue
        fields = line.split(None, 7)
        if len(fields) < 7 or not fields[0][:-1].isdigit():
            continue
        name = fields[7] if len(fields) == 8 else ""
        value, size, typ, bind, ndx = int(fields[1], 16), number(fields[2]), fields[3], \
            fields[4], fields[6]
        if typ == "FILE":
            file = name
            continue
        out.append((value, size, typ, bind, ndx, name, file))
    return out


class Function:
    def __init__(self, obj, name, local, file, section, size):
        self.obj, self.name, self.local, self.file = obj, name, local, file
        self.section, self.size = section, size
        self.self_cost = 0

    def pattern(self):
        return "*/%s(%s)" % (os.path.basename(self.obj), self.section)


def object_functions(objects):
    """{name: [Function]}: the functions of the objects that have an input section of their
    own."""
    by_name = {}
    for obj in objects:
        names = section_names(obj)
        syms = [s for s in symbols(obj) if s[2] == "FUNC" and s[4].isdigit() and s[1] > 0]
        starts = {}
        for value, _, _, _, ndx, _, _ in syms:
            starts.setdefault(int(ndx), set()).add(value)
        for value, size, _, bind, ndx, name, file in syms:
            if len(starts[int(ndx)]) > 1:
                continue  # the section holds several functions: it cannot move alone
            by_name.setdefault(name, []).append(
                Function(obj, name, bind == "LOCAL", file, names[int(ndx)], size))
    return by_name


def object_function(by_name, name, local, file, size, warned):
    """The object function an ELF function symbol came from, or None. A static is matched by its
    source file (STT_FILE); a global the linker made local (hidden visibility) has no source
    file of its own in the ELF, so globals are the next candidates; then the size decides."""
    candidates = by_name.get(name, [])
    if len(candidates) > 1:
        exact = [fn for fn in candidates if local and fn.local and fn.file == file]
        candidates = exact or [fn for fn in candidates if not fn.local] or candidates
    if len(candidates) > 1:
        candidates = [fn for fn in candidates if fn.size == size] or candidates
    if len(candidates) > 1 and name not in warned:
        warned.add(name)
        print("classic_order.py: '%s' (%s) is in several objects; taken as %s's" % (
            name, file, candidates[0].obj), file=sys.stderr)
    return candidates[0] if candidates else None


def self_costs(profiles, elf, by_name):
    """Adds to each object function its self instructions (Ir), from callgrind profiles of the
    linked ELF."""
    funcs = sorted((v, s, n, b == "LOCAL", f) for v, s, t, b, ndx, n, f in symbols(elf)
                   if t == "FUNC" and ndx.isdigit() and s > 0)
    starts = [f[0] for f in funcs]
    elf_real, elf_base = os.path.realpath(elf), os.path.basename(elf)
    cost = [0] * len(funcs)
    total = unmatched = 0
    for path in profiles:
        objects = {}           # object name table: id -> name
        positions = ["line"]   # the columns of a position
        event = 0              # the column of Ir among the costs
        current = False        # the cost lines are of the ELF (ob=)
        last = []              # the previous position, for "+N", "-N" and "*"
        skip = False           # the next cost line is a call's inclusive cost, not self cost
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line[0] == "#":
                    continue
                if line[0].isdigit() or line[0] in "+-*":
                    tokens = line.split()
                    position = []
                    for i, t in enumerate(tokens[:len(positions)]):
                        previous = last[i] if i < len(last) else 0
                        if t == "*":
                            position.append(previous)
                        elif t[0] in "+-":
                            position.append(previous + int(t, 0))
                        else:
                            position.append(int(t, 0))
                    last = position
                    costs = tokens[len(positions):]
                    if not skip and current and len(costs) > event:
                        ir = int(costs[event])
                        address = position[positions.index("instr")]
                        total += ir
                        i = bisect.bisect_right(starts, address) - 1
                        if i >= 0 and address < funcs[i][0] + funcs[i][1]:
                            cost[i] += ir
                        else:
                            unmatched += ir
                    skip = False
                    continue
                m = re.match(r"(\w+)=(.*)$", line)
                if m:
                    key, value = m.groups()
                    if key in ("calls", "jump", "jcnd"):
                        skip = True
                    elif key in ("ob", "cob"):
                        ref = re.match(r"\((\d+)\)\s*(.*)$", value)
                        name = value
                        if ref:
                            if ref.group(2):
                                objects[ref.group(1)] = ref.group(2)
                            name = objects.get(ref.group(1), "")
                        if key == "ob":
                            current = (os.path.realpath(name) == elf_real or
                                       os.path.basename(name) == elf_base)
                    continue
                m = re.match(r"(\w+):\s*(.*)$", line)
                if m:
                    key, value = m.groups()
                    if key == "positions":
                        positions = value.split()
                        if "instr" not in positions:
                            sys.exit("%s: no instruction addresses (callgrind --dump-instr=yes)"
                                     % path)
                    elif key == "events":
                        events = value.split()
                        event = events.index("Ir") if "Ir" in events else 0
                    elif key == "part":
                        current, last, skip = False, [], False
    if total == 0:
        sys.exit("classic_order.py: no instructions of %s in %s" % (elf, " ".join(profiles)))
    if unmatched > total / 20:
        print("classic_order.py: %.1f%% of %s's instructions are outside its function symbols"
              % (100.0 * unmatched / total, elf), file=sys.stderr)
    warned = set()
    for (value, size, name, local, file), ir in zip(funcs, cost):
        fn = object_function(by_name, name, local, file, size, warned) if ir else None
        if fn is not None:
            fn.self_cost += ir


def read_arcs(path, by_name):
    """{(caller, callee): calls} from lines "caller callee count" as `lorgen callgraph` writes
    them. A cold part's calls count as its function's; self calls and functions that cannot be
    placed are left out."""
    arcs = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) != 3:
                continue
            a, b = (COLD_PART.sub("", x) for x in fields[:2])
            if a == b or a not in by_name or b not in by_name:
                continue
            arcs[(a, b)] = arcs.get((a, b), 0) + int(fields[2])
    return arcs


def pettis_hansen(edges, sizes, chain_order):
    """edges: {(a, b): weight} with a < b. Returns the chains, in output order, with weights."""
    original = dict(edges)
    adjacent = {}  # chain id -> {chain id: weight}
    chains = {}    # chain id -> [function]
    joined = {}    # chain id -> summed weight of the edges joined into it
    chain_of = {}
    for (a, b) in sorted(edges):
        for x in (a, b):
            if x not in chain_of:
                chain_of[x] = len(chains)
                chains[len(chains)] = [x]
                joined[chain_of[x]] = 0
    heap = []
    serial = 0
    for (a, b), w in sorted(edges.items(), key=lambda e: (-e[1], e[0])):
        ca, cb = chain_of[a], chain_of[b]
        adjacent.setdefault(ca, {})[cb] = w
        adjacent.setdefault(cb, {})[ca] = w
        heap.append((-w, serial, ca, cb))
        serial += 1
    heapq.heapify(heap)

    def weight(x, y):
        return original.get((x, y) if x < y else (y, x), 0)

    next_id = len(chains)
    while heap:
        negative, _, ca, cb = heapq.heappop(heap)
        if ca not in chains or cb not in chains or adjacent[ca].get(cb) != -negative:
            continue  # an edge of chains joined since
        a, b = chains[ca], chains[cb]
        ways = [(weight(a[-1], b[0]), a + b),
                (weight(a[-1], b[-1]), a + b[::-1]),
                (weight(a[0], b[0]), a[::-1] + b),
                (weight(b[-1], a[0]), b + a)]
        best = max(junction for junction, _ in ways)
        merged = next(chain for junction, chain in ways if junction == best)
        c = next_id
        next_id += 1
        chains[c] = merged
        joined[c] = joined.pop(ca) + joined.pop(cb) - negative
        links = {}
        for old in (ca, cb):
            for n, nw in adjacent.pop(old).items():
                if n not in (ca, cb):
                    links[n] = links.get(n, 0) + nw
                    del adjacent[n][old]
        adjacent[c] = links
        for n, nw in sorted(links.items()):
            adjacent[n][c] = nw
            heapq.heappush(heap, (-nw, serial, c, n))
            serial += 1
        del chains[ca], chains[cb]
        for x in merged:
            chain_of[x] = c

    def heat(c):
        if chain_order == "density":
            return joined[c] / max(1, sum(sizes[x] for x in chains[c]))
        return joined[c]
    return [(chains[c], joined[c]) for c in sorted(chains, key=lambda c: (-heat(c), c))]


def cdsort(arcs, sizes, rank):
    """arcs: {(caller, callee): calls}, no self calls; sizes: {name: bytes > 0}; rank: {name:
    input order}. Returns the chains (lists of names) in output order. Each merge looks at every
    pair of chains that call each other: quadratic, and under 3 s on the benchmark's programs."""
    names = sorted({x for arc in arcs for x in arc}, key=lambda n: rank[n])
    calls_in = dict.fromkeys(names, 0)
    calls_out = dict.fromkeys(names, 0)
    touching = {n: [] for n in names}  # name -> the arcs into or out of it
    for (a, b), w in arcs.items():
        calls_out[a] += w
        calls_in[b] += w
        touching[a].append((a, b, w))
        touching[b].append((a, b, w))
    count = {n: max(calls_in[n], calls_out[n]) for n in names}
    total_count = sum(count.values()) or 1
    floor = sum(sizes[n] for n in names) ** -DIST_POWER

    def score(c, size):
        base = 1 - (c / size) * PAGE_BYTES / total_count
        return c * base ** PAGE_ENTRIES if base > 0 else 0.0

    chain = {i: [n] for i, n in enumerate(names)}  # chain id -> names in order
    chain_of = {n: i for i, n in enumerate(names)}
    size = {i: sizes[n] for i, n in enumerate(names)}
    weight = {i: count[n] for i, n in enumerate(names)}

    def calls_between(x, y):
        return [(a, b, w) for n in chain[x] for (a, b, w) in touching[n]
                if chain_of[b if a == n else a] == y]

    def dist_gain(first, second, between):
        at, offset = {}, 0
        for n in chain[first] + chain[second]:
            at[n] = offset
            offset += sizes[n]
        return sum(w * (max(abs(at[a] + (sizes[a] + 1) // 2 - at[b]), ZERO_DISTANCE) ** -DIST_POWER
                        - floor) for a, b, w in between)

    def best_merge(x, y):
        """(gain, first, second) of the better way to join chains x and y (x ranks first)."""
        between = calls_between(x, y)
        if len(chain[x]) + len(chain[y]) > MAX_CHAIN_FUNCTIONS or not between:
            return None
        freq = score(weight[x], size[x]) + score(weight[y], size[y]) - \
            score(weight[x] + weight[y], size[x] + size[y])
        best = None
        for first, second in ((x, y), (y, x)):
            gain = dist_gain(first, second, between) + FREQ_SCALE * freq
            if gain >= 0:
                gain /= min(size[x], size[y])
            if best is None or gain > best[0]:
                best = (gain, first, second)
        return best

    gains = {}  # (x, y), x's first function ranked first -> best_merge(x, y)

    def pair(x, y):
        return (x, y) if rank[chain[x][0]] < rank[chain[y][0]] else (y, x)

    def refresh(x):
        """Recomputes the gains of chain x with every chain it calls or is called by."""
        neighbours = {chain_of[b if a == n else a] for n in chain[x] for (a, b, _) in touching[n]}
        neighbours.discard(x)
        for y in neighbours:
            gains[pair(x, y)] = best_merge(*pair(x, y))

    for i in list(chain):
        refresh(i)
    while True:
        live = [(g[0], -rank[chain[k[0]][0]], -rank[chain[k[1]][0]], g[1], g[2])
                for k, g in gains.items() if g is not None and g[0] > 0]
        if not live:
            break
        _, _, _, first, second = max(live)
        for k in [k for k in gains if first in k or second in k]:
            del gains[k]
        chain[first] = chain[first] + chain.pop(second)
        size[first] += size.pop(second)
        weight[first] += weight.pop(second)
        for n in chain[first]:
            chain_of[n] = first
        refresh(first)
    return sorted(chain.values(),
                  key=lambda c: (-sum(count[n] for n in c) / sum(sizes[n] for n in c), rank[c[0]]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=["ph", "hot", "cdsort"])
    ap.add_argument("--callgraph", help="ph, cdsort: the call counts, 'caller callee count' a line")
    ap.add_argument("--elf", required=True, help="the linked program the profiles ran")
    ap.add_argument("--callgrind", nargs="+", required=True, help="callgrind profiles of ELF")
    ap.add_argument("--objects", nargs="+", required=True, help="the objects to link")
    ap.add_argument("--chain-order", choices=["weight", "density"], default="weight",
                    help="ph: the order of the final chains")
    ap.add_argument("-o", "--output", required=True, help="the GNU ld script to write")
    args = ap.parse_args()
    if args.kind in ("ph", "cdsort") and not args.callgraph:
        ap.error("%s needs --callgraph" % args.kind)

    by_name = object_functions(args.objects)
    self_costs(args.callgrind, args.elf, by_name)
    for name in [name for name in by_name if COLD_PART.search(name)]:
        del by_name[name]  # not hot code, wherever the profile saw it

    groups = []  # (comment, [Function]) in output order

    def copies_of(name):
        """The object functions of a call-graph name: the copies that ran, hottest first."""
        copies = by_name[name]
        if len(copies) > 1:
            ran = [fn for fn in copies if fn.self_cost > 0]
            copies = sorted(ran or copies, key=lambda fn: (-fn.self_cost, fn.obj))
        return copies

    if args.kind in ("ph", "cdsort"):
        arcs = read_arcs(args.callgraph, by_name)
        sizes = {name: sum(fn.size for fn in fns) for name, fns in by_name.items()}
    if args.kind == "ph":
        edges = {}
        for (a, b), w in arcs.items():
            key = (a, b) if a < b else (b, a)
            edges[key] = edges.get(key, 0) + w
        for i, (chain, w) in enumerate(pettis_hansen(edges, sizes, args.chain_order)):
            fns = [fn for name in chain for fn in copies_of(name)]
            groups.append(("chain %d: %d functions, weight %d" % (i + 1, len(chain), w), fns))
    elif args.kind == "cdsort":
        rank = {name: i for i, name in enumerate(by_name)}  # the objects' order, then theirs
        sizes = {name: max(1, size) for name, size in sizes.items()}
        for i, chain in enumerate(cdsort(arcs, sizes, rank)):
            fns = [fn for name in chain for fn in copies_of(name)]
            groups.append(("chain %d: %d functions" % (i + 1, len(chain)), fns))
    else:
        ran = [fn for fns in by_name.values() for fn in fns if fn.self_cost > 0]
        ran.sort(key=lambda fn: (-fn.self_cost / fn.size, -fn.self_cost, fn.name, fn.obj))
        groups.append(("%d functions that ran, by self Ir per byte" % len(ran), ran))

    written = set()
    nfns = nbytes = 0
    body = []
    for comment, fns in groups:
        body.append("    /* %s */" % comment)
        for fn in fns:
            if (fn.obj, fn.section) in written:
                continue
            written.add((fn.obj, fn.section))
            nfns += 1
            nbytes += fn.size
            body.append("    %s" % fn.pattern())
    with open(args.output, "w") as out:
        out.write("/* classic-%s by tests/bench/classic_order.py: %d functions, %d bytes, first"
                  " in .text.\n * Use with the default linker script: gcc ... -Wl,-T,THIS_FILE */\n"
                  % (args.kind, nfns, nbytes))
        out.write("SECTIONS\n{\n  .text.classic :\n  {\n")
        out.write("\n".join(body) + "\n")
        out.write("  }\n}\nINSERT BEFORE .text;\n")


if __name__ == "__main__":
    main()
