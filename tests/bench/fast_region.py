#!/usr/bin/env python3
"""Share of a workload's instruction fetches that a fast code region of a given size would
serve, for four ways of choosing its functions (tests/bench/fast_region.sh runs it; see there).

    fast_region.py --elf PROBE --objects O... [--archives A...] --train CG... --eval CG...
                   --sizes 8192,16384,32768 --lor SIZE=LABEL=FILE...

All the callgrind files must profile PROBE itself (--dump-instr=yes): their costs are read per
instruction address and given to the ELF function symbol that holds the address, so that local
functions of the same name are told apart. A function's bytes are its symbol size rounded up to
its input section's alignment (read from the objects; 16, gcc's -O2 function alignment, where
the section is not found). Prints one line per size and method: the share of the EVAL Ir.
"""
import argparse
import math
import bisect
import re
import subprocess
import sys

DEFAULT_ALIGN = 16  # bytes: gcc -O2 on x86-64 aligns functions to 16


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def elf_functions(elf):
    """(address, size, name) of the ELF's function symbols, by address."""
    out = []
    for line in run('nm', '-S', '--defined-only', elf).splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in 'tTwW' and int(p[1], 16) > 0:
            out.append((int(p[0], 16), int(p[1], 16), p[3]))
    out.sort()
    # One function per address; its aliases (other names of the same code) are kept for lookups.
    uniq, aliases = [], []
    for s in out:
        if not uniq or uniq[-1][0] != s[0]:
            uniq.append(s)
            aliases.append([])
        aliases[-1].append(s[2])
    return uniq, aliases


def parse_callgrind(path):
    """Self Ir per instruction address and call counts per call-target address. Positions are
    'instr line' or 'instr'; a calls= or jump line's target does not move the base of the
    relative positions that follow (checked: costs then land inside their fn= symbols)."""
    cost, calls = {}, {}
    last = 0
    skip = False
    fields = 1

    def pos(tok):
        if tok == '*':
            return last
        if tok[0] == '+':
            return last + int(tok[1:], 0)
        if tok[0] == '-':
            return last - int(tok[1:], 0)
        return int(tok, 0)

    with open(path) as f:
        for line in f:
            c = line[0]
            if c in '0123456789+-*':
                p = line.split()
                last = pos(p[0])
                if skip:  # the inclusive cost of a call: not self cost
                    skip = False
                    continue
                if len(p) > fields:
                    cost[last] = cost.get(last, 0) + int(p[fields])
            elif line.startswith('calls='):
                p = line[6:].split()
                t = pos(p[1])
                calls[t] = calls.get(t, 0) + int(p[0])
                skip = True
            elif line.startswith('positions:'):
                fields = len(line.split()) - 1
    return cost, calls


def per_function(addr_values, starts, n):
    v = [0] * n
    for a, x in addr_values.items():
        i = bisect.bisect_right(starts, a) - 1
        if i >= 0:
            v[i] += x
    return v


def object_info(objects, archives):
    """name -> list of (object label, size, align, input section, its size) for the functions
    the inputs define; an archive member's label is ARCHIVE:MEMBER."""
    defs = {}
    for path in objects + archives:
        aligns = {}  # (member or None, section name) -> alignment of executable sections
        member = None
        for line in run('readelf', '-SW', path).splitlines():
            m = re.match(r'^File: .*\((.+)\)$', line.strip())
            if m:
                member = m.group(1)
            m = re.match(r'^\s*\[\s*\d+\]\s+(\S+)\s+PROGBITS\s+\S+\s+\S+\s+(\S+)\s+\S+\s+(\S+)\s+\d+\s+\d+\s+(\d+)\s*$', line)
            if m and 'X' in m.group(3):
                aligns[(member, m.group(1))] = (int(m.group(4)), int(m.group(2), 16))
        for line in run('nm', '-S', '--defined-only', '-A', path).splitlines():
            p = line.split()
            if len(p) != 4 or p[2] not in 'tTwW':
                continue
            label = p[0].rsplit(':', 1)[0]
            mem = label.rsplit(':', 1)[1] if path in archives else None
            name, size = p[3], int(p[1], 16)
            al, section, secsize = DEFAULT_ALIGN, None, size
            for sec in ('.text.' + name, '.text.hot.' + name, '.text.unlikely.' + name,
                        '.text.startup.' + name, '.text'):
                if (mem, sec) in aligns:
                    al, secsize = aligns[(mem, sec)]
                    section = sec
                    break
            defs.setdefault(name, []).append((label, size, al, section, secsize))
    return defs


def align_up(n, a):
    return (n + a - 1) // a * a


def greedy(order, budget):
    """Takes the (bytes, functions) units in ORDER while they fit, skipping those that do not."""
    used, taken = 0, []
    for w, fs in order:
        if used + w <= budget:
            used += w
            taken += fs
    return taken, used


def knapsack_best(items, budget):
    """The most value any set of (bytes, value) items fitting in BUDGET bytes has: exact
    dynamic programming over bytes (best[b] = most value in b bytes)."""
    best = [0] * (budget + 1)
    for w, v in items:
        if w > budget or v <= 0:
            continue
        head = best[:w]
        best = head + [x if x >= y + v else y + v for x, y in zip(best[w:], best)]
    return best[budget]


def knapsack_set(items, budget):
    """The indexes of a set of (bytes, value) items of most value that fits in BUDGET bytes:
    exact dynamic programming over bytes counted in granules (the weights' greatest common
    divisor), keeping each item's decisions to walk back."""
    live = [k for k, (w, v) in enumerate(items) if w <= budget and v > 0]
    g = 0
    for k in live:
        g = math.gcd(g, items[k][0])
    if not live:
        return []
    cells = budget // g
    best = [0] * (cells + 1)
    took = []
    for k in live:
        w, v = items[k][0] // g, items[k][1]
        new = best[:w] + [x if x >= y + v else y + v for x, y in zip(best[w:], best)]
        took.append(bytes(1 if a != b else 0 for a, b in zip(new, best)))
        best = new
    chosen, b = [], cells
    for j in range(len(live) - 1, -1, -1):
        if took[j][b]:
            chosen.append(live[j])
            b -= items[live[j]][0] // g
    return chosen


def lor_members(path):
    """(name, size) of the fn lines of the region statement of a .LOR file."""
    out, inside = [], False
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s.startswith('region '):
                inside = True
                continue
            if inside and (s.startswith('clique') or s.startswith('cold') or s.startswith('region')):
                inside = False
            if inside and s.startswith('fn '):
                p = s.split()
                size = next(int(x[5:]) for x in p if x.startswith('size='))
                out.append((p[1], size))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--elf', required=True)
    ap.add_argument('--objects', nargs='+', required=True)
    ap.add_argument('--archives', nargs='*', default=[])
    ap.add_argument('--train', nargs='+', required=True)
    ap.add_argument('--eval', nargs='+', required=True)
    ap.add_argument('--sizes', required=True)
    ap.add_argument('--lor', nargs='*', default=[], help='SIZE=LABEL=FILE')
    ap.add_argument('--program', default='')
    a = ap.parse_args()

    syms, aliases = elf_functions(a.elf)
    starts = [s[0] for s in syms]
    n = len(syms)
    train_ir, train_calls, eval_ir = [0] * n, [0] * n, [0] * n
    train_share = [0.0] * n  # each TRAIN process's Ir as a share of its own, summed
    for path in a.train:
        c, k = parse_callgrind(path)
        mine = per_function(c, starts, n)
        whole = sum(mine) or 1
        for i, x in enumerate(mine):
            train_ir[i] += x
            train_share[i] += x / whole
        for i, x in enumerate(per_function(k, starts, n)):
            train_calls[i] += x
    eval_total = 0
    for path in a.eval:
        c, _ = parse_callgrind(path)
        eval_total += sum(c.values())
        for i, x in enumerate(per_function(c, starts, n)):
            eval_ir[i] += x

    defs = object_info(a.objects, a.archives)
    owner, nbytes, section = [None] * n, [0] * n, [None] * n
    by_name = {}
    for i, (_, size, name) in enumerate(syms):
        for alias in aliases[i]:
            by_name.setdefault(alias, []).append(i)
        cands = [d for alias in aliases[i] for d in defs.get(alias, [])]
        match = [d for d in cands if d[1] == size] or cands
        if match:
            owner[i] = match[0][0]
            nbytes[i] = align_up(size, match[0][2])
            section[i] = (match[0][0], match[0][3], align_up(match[0][4], match[0][2]))
        else:  # code from no input (start files, linker stubs): cannot be moved by a script
            nbytes[i] = align_up(size, DEFAULT_ALIGN)
    movable = [i for i in range(n) if owner[i] is not None]
    # A linker script moves input sections: functions that share one (a C library member's
    # .text) go in together, at the section's size. Each unit is (bytes, functions).
    shared = {}
    for i in movable:
        shared.setdefault(section[i], []).append(i)
    units = []
    for key, fs in sorted(shared.items(), key=lambda kv: kv[1][0]):
        if len(fs) == 1 and key[1] != '.text':
            units.append((nbytes[fs[0]], fs))
        else:
            units.append((key[2] or sum(nbytes[i] for i in fs), fs))

    lors = {}
    for spec in a.lor:
        size, label, path = spec.split('=', 2)
        lors.setdefault(int(size), []).append((label, path))

    def share(taken):
        return 100.0 * sum(eval_ir[i] for i in taken) / eval_total

    print('# program\tregion\tmethod\tshare%_of_EVAL_Ir\tbytes\tfunctions')
    for size in [int(x) for x in a.sizes.split(',')]:
        rows = []
        for label, path in lors.get(size, []):
            taken, unmatched = [], 0
            for name, msize in lor_members(path):
                cand = by_name.get(name, [])
                exact = [i for i in cand if syms[i][1] == msize]
                pick = exact or cand
                if pick:
                    taken.append(pick[0])
                else:
                    unmatched += 1
            if unmatched:
                print(f'# {label}: {unmatched} members not found in the ELF', file=sys.stderr)
            rows.append((label, taken, sum(nbytes[i] for i in taken)))
        def total(v, fs):
            return sum(v[i] for i in fs)
        order = sorted((u for u in units if total(train_calls, u[1]) > 0),
                       key=lambda u: (-max(train_calls[i] for i in u[1]), u[1][0]))
        rows.append(('hottest-by-calls', *greedy(order, size)))
        files = {}
        for i in movable:
            files.setdefault(owner[i], []).append(i)
        fw = {f: (sum(train_ir[i] for i in fs), sum(nbytes[i] for i in fs)) for f, fs in files.items()}
        forder = sorted((f for f in fw if fw[f][0] > 0), key=lambda f: (-fw[f][0] / fw[f][1], f))
        used, ftaken = 0, []
        for f in forder:
            if used + fw[f][1] <= size:
                used += fw[f][1]
                ftaken += files[f]
        rows.append(('whole-files', ftaken, used))
        # Diagnostic: what knowing TRAIN's self Ir exactly gets (lorgen's own measure of worth).
        torder = sorted((u for u in units if total(train_ir, u[1]) > 0),
                        key=lambda u: (-total(train_ir, u[1]) / u[0], u[1][0]))
        rows.append(('train-ir-greedy', *greedy(torder, size)))
        border = sorted((u for u in units if total(eval_ir, u[1]) > 0),
                        key=lambda u: (-total(eval_ir, u[1]) / u[0], u[1][0]))
        rows.append(('bound-greedy', *greedy(border, size)))
        # Fractional knapsack: an upper bound on any set of whole functions.
        left, frac = size, 0.0
        for w, fs in border:
            take = min(1.0, left / w)
            frac += take * total(eval_ir, fs)
            left -= take * w
            if left <= 0:
                break
        # Diagnostics of the loss from TRAIN to EVAL (what no choice made from TRAIN can see):
        # the exact best set for TRAIN, for TRAIN with every process weighed alike, and for
        # TRAIN's values shrunk by a square root (a prior that TRAIN's extremes overstate);
        # the best set knowing EVAL among the units TRAIN ran; EVAL's share in units TRAIN
        # never ran.
        def exact_by(values, among):
            items = [(w, values(fs)) for w, fs in among]
            picked = knapsack_set(items, size)
            return [i for k in picked for i in among[k][1]], sum(among[k][0] for k in picked)
        ran = [u for u in units if total(train_ir, u[1]) > 0]
        rows.append(('train-exact', *exact_by(lambda fs: total(train_ir, fs), ran)))
        rows.append(('train-per-process-exact',
                     *exact_by(lambda fs: int(1e9 * sum(train_share[i] for i in fs)), ran)))
        rows.append(('train-sqrt-exact',
                     *exact_by(lambda fs: int(1e3 * math.sqrt(total(train_ir, fs))), ran)))
        rows.append(('bound-among-ran', *exact_by(lambda fs: total(eval_ir, fs), ran)))
        unseen = [i for u in units if total(train_ir, u[1]) == 0 for i in u[1]]
        rows.append(('eval-in-never-ran', unseen, 0))
        for label, taken, used in rows:
            print(f'{a.program}\t{size}\t{label}\t{share(taken):.1f}\t{used}\t{len(taken)}')
        exact = knapsack_best([(w, total(eval_ir, fs)) for w, fs in border], size)
        print(f'{a.program}\t{size}\tbound-exact\t{100.0 * exact / eval_total:.1f}\t{size}\t-')
        print(f'{a.program}\t{size}\tbound-fractional\t{100.0 * frac / eval_total:.1f}\t{size}\t-')
    print(f'# {a.program}: EVAL Ir {eval_total}', file=sys.stderr)


if __name__ == '__main__':
    main()
