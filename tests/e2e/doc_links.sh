#!/usr/bin/env bash
# Every relative link in the Markdown pages (the root's *.md and docs/**/*.md) must lead
# somewhere: the file or folder must exist in the source tree, and an anchor into a Markdown page
# must name one of its headings. A heading's anchor is the one GitHub gives it: lowercase,
# punctuation dropped except '-' and '_', each space a '-', and "-1", "-2", ... after a repeat.
# Links inside code (fenced blocks, `spans`) and links with a scheme (https:, mailto:) are not
# checked. The pages that code comments, scripts and the man page name by path (docs/X.md,
# CONTRIBUTING.md, with an anchor or not) must exist too: a page moved or renamed leaves none
# behind.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
: "$lorgen" "$work"
have python3 || fail "python3 is needed to read the Markdown pages (scripts/setup.sh installs it)"

step "relative links and anchors in README.md, CONTRIBUTING.md and docs/"
python3 - "$src" <<'PY'
import os, re, sys

root = os.path.realpath(sys.argv[1])
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if m:
                mark = m.group(1)
                if fence is None:
                    fence = mark
                elif mark[0] == fence[0] and len(mark) >= len(fence):
                    fence = None
                continue
            if fence is None:
                yield number, line


def slug(text):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


anchors_of = {}


def anchors(path):
    if path not in anchors_of:
        seen, found = {}, set()
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else "%s-%d" % (base, n))
        anchors_of[path] = found
    return anchors_of[path]


pages = [os.path.join(root, n) for n in sorted(os.listdir(root)) if n.endswith(".md")]
for folder, dirs, files in os.walk(os.path.join(root, "docs")):
    dirs.sort()
    pages += [os.path.join(folder, n) for n in sorted(files) if n.endswith(".md")]

broken = 0
checked = 0
for page in pages:
    rel_page = os.path.relpath(page, root)
    for number, line in prose_lines(page):
        line = CODE_SPAN.sub("", line)
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        m = REF_DEF.match(line)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if not target or SCHEME.match(target):
                continue
            checked += 1
            path, _, anchor = target.partition("#")
            where = os.path.realpath(os.path.join(os.path.dirname(page), path)) if path else page
            problem = None
            if where != root and not where.startswith(root + os.sep):
                problem = "leads outside the source tree"
            elif not os.path.exists(where):
                problem = "no such file or folder"
            elif anchor and where.endswith(".md") and os.path.isfile(where):
                if anchor not in anchors(where):
                    problem = "no heading of %s has the anchor #%s" % (
                        os.path.relpath(where, root), anchor)
            if problem:
                broken += 1
                print("%s:%d: (%s): %s" % (rel_page, number, target, problem), file=sys.stderr)

print("doc_links: %d relative links in %d pages, %d broken" % (checked, len(pages), broken),
      file=sys.stderr)

# Pages named in the code, the scripts and the man page, as paths from the source root.
NAMED = re.compile(r"(?<![\w./-])((?:docs/[\w./-]+|[A-Z]+)\.md)(#[\w-]+)?")
TEXT = (".c", ".h", ".sh", ".bash", ".py", ".cmake", ".mk", ".1", ".txt", ".clang-format")
sources = [os.path.join(root, n) for n in sorted(os.listdir(root))
           if os.path.isfile(os.path.join(root, n)) and n.endswith(TEXT)]
for top in ("src", "loaders", "optimizer", "tests", "cmake", "scripts", "examples", ".ci", "docs"):
    for folder, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        sources += [os.path.join(folder, n) for n in sorted(files)
                    if n.endswith(TEXT) or n in ("run", "Makefile")]
named = 0
this_test = os.path.join(root, "tests", "e2e", "doc_links.sh")  # names pages as examples
for source in sources:
    if source == this_test:
        continue
    try:
        with open(source, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except UnicodeDecodeError:
        continue
    for number, line in enumerate(lines, 1):
        for m in NAMED.finditer(line):
            named += 1
            page, anchor = m.group(1), (m.group(2) or "#")[1:]
            where = os.path.join(root, page)
            problem = None
            if not os.path.isfile(where):
                problem = "no such page"
            elif anchor and anchor not in anchors(where):
                problem = "no heading of %s has the anchor #%s" % (page, anchor)
            if problem:
                broken += 1
                print("%s:%d: (%s): %s" % (os.path.relpath(source, root), number, m.group(0),
                                           problem), file=sys.stderr)
print("doc_links: %d pages named in code, scripts and the man page; %d broken in all" %
      (named, broken), file=sys.stderr)
sys.exit(1 if broken else 0)
PY
