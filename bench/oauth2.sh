#!/usr/bin/env bash
# OAuth2 access tokens against personal access tokens (issue 16): GET
# /api/v1/user in process on SQLite (BenchmarkTokenKinds in cmd/cairn), COUNT
# runs of each, alternating; prints the median ns/op of each kind and the
# OAuth2 throughput as a share of the personal token's (target: >= 90 %).
# Usage: bash bench/oauth2.sh [count] [benchtime]
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-6}
TIME=${2:-2s}
go test -run '^$' -bench 'BenchmarkTokenKinds' -benchtime "$TIME" -count "$COUNT" ./cmd/cairn 2>/dev/null |
  awk '/^BenchmarkTokenKinds\// {
         split($1, p, "/"); sub(/-[0-9]+$/, "", p[2]); v[p[2]] = v[p[2]] " " $3
       }
       function median(s,   a, n, i, j, t) {
         n = split(s, a, " ")
         for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
         return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
       }
       END {
         pat = median(v["pat"]); o = median(v["oauth2"])
         printf "personal access token: %.0f ns/op (median of%s)\n", pat, v["pat"]
         printf "OAuth2 access token:   %.0f ns/op (median of%s)\n", o, v["oauth2"]
         printf "OAuth2 throughput = %.0f %% of the personal token'"'"'s\n", 100 * pat / o
       }'
