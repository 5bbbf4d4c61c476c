#!/usr/bin/env bash
# Runs every Go fuzz target under internal/ and cmd/ for FUZZTIME each.
#
# Go 1.26's fuzz coordinator can end a duration-bounded run with a bare
# "context deadline exceeded" failure when a busy worker misses the stop
# deadline (golang/go#75804, fixed in Go 1.27). Such a run writes no failing
# input. A run that fails that way is accepted only when it wrote no new input
# under testdata/fuzz and replaying the target's seed corpus and kept cases
# passes; every other failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

corpus_listing() { ls -1 "$1" 2>/dev/null || true; }

for pkg in $(grep -l --include='*_test.go' -r '^func Fuzz' internal cmd | xargs -n1 dirname | sort -u); do
  for target in $(grep -h -o '^func Fuzz[A-Za-z0-9_]*' "$pkg"/*_test.go | cut -c6-); do
    echo "fuzz ./$pkg $target ($fuzztime)"
    dir="$pkg/testdata/fuzz/$target"
    before=$(corpus_listing "$dir")
    if go test "./$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" 2>&1 | tee "$log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
      continue
    fi
    after=$(corpus_listing "$dir")
    if [ "$before" != "$after" ] || grep -q 'Failing input written' "$log" || ! grep -q '^    context deadline exceeded$' "$log"; then
      echo "fuzz: $target failed" >&2
      exit 1
    fi
    echo "fuzz: $target ended on the coordinator's deadline race (golang/go#75804) with no failing input; replaying its corpus"
    go test "./$pkg" -count=1 -run "^$target\$"
  done
done
