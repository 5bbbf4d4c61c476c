#!/usr/bin/env bash
# Generates the benchmark repository of bench/git.sh (and bench/pulls.sh):
# a bare repository with <commits> commits on main (1-4 text files of
# 5-200 lines changed per commit, in 31 directories of up to 121 files), the
# branches feature-NN at random commits and the tags v1.N.0, deterministic
# (seed 42), then packed by gc --aggressive.
# Usage: bash bench/lib/genrepo.sh <path.git> [commits] [branches] [tags]
set -euo pipefail
OUT=$1
COMMITS=${2:-3000}
BRANCHES=${3:-40}
TAGS=${4:-34}
STREAM=$(mktemp)
trap 'rm -f "$STREAM"' EXIT
git init -q --bare "$OUT"
python3 - "$COMMITS" "$BRANCHES" "$TAGS" > "$STREAM" <<'PY'
import sys, random
commits, branches, tags = map(int, sys.argv[1:4])
random.seed(42)
out = sys.stdout
mark = 0
files = {}
words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau".split()
marks = []
for i in range(commits):
    mark += 1
    # change a few files per commit, some of them larger
    changes = []
    for _ in range(random.randint(1, 4)):
        path = "src/pkg%02d/file%03d.txt" % (random.randint(0, 30), random.randint(0, 120))
        body = "\n".join(" ".join(random.choice(words) for _ in range(12)) for _ in range(random.randint(5, 200))) + "\n"
        changes.append((path, body))
    msg = "commit %d: %s\n" % (i, " ".join(random.choice(words) for _ in range(6)))
    out.write("commit refs/heads/main\nmark :%d\n" % mark)
    out.write("author Bench <bench@example.com> %d +0000\n" % (1600000000 + i * 600))
    out.write("committer Bench <bench@example.com> %d +0000\n" % (1600000000 + i * 600))
    out.write("data %d\n%s" % (len(msg.encode()), msg))
    if mark > 1:
        out.write("from :%d\n" % (mark - 1))
    for path, body in changes:
        data = body.encode()
        out.write("M 100644 inline %s\ndata %d\n" % (path, len(data)))
        out.flush(); sys.stdout.buffer.write(data); out.write("\n")
    marks.append(mark)
for b in range(branches):
    out.write("reset refs/heads/feature-%02d\nfrom :%d\n\n" % (b, random.choice(marks)))
for t in range(tags):
    out.write("reset refs/tags/v1.%d.0\nfrom :%d\n\n" % (t, marks[int(len(marks) * (t + 1) / (tags + 1))]))
PY
git -C "$OUT" fast-import --quiet < "$STREAM"
git -C "$OUT" gc -q --aggressive 2>/dev/null || git -C "$OUT" gc -q
