#!/usr/bin/env bash
# OAuth2 access tokens against personal access tokens (issue 16): GET
# /api/v1/user in process on SQLite (BenchmarkTokenKinds/paired in cmd/cairn),
# the two kinds alternating request by request in one loop so that both meet
# the same process state; COUNT runs; prints each kind's median time per
# request and the median OAuth2 throughput as a share of the personal
# token's (target: >= 90 %).
# Usage: bash bench/oauth2.sh [count] [requests-per-run]
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-6}
N=${2:-20000}
go test -run '^$' -bench 'BenchmarkTokenKinds/paired' -benchtime "${N}x" -count "$COUNT" ./cmd/cairn 2>/dev/null |
  awk '/^BenchmarkTokenKinds\/paired/ {
         for (i = 1; i < NF; i++) {
           if ($(i + 1) == "oauth2-%-of-pat") share = share " " $i
           if ($(i + 1) == "oauth2-ns/req") o = o " " $i
           if ($(i + 1) == "pat-ns/req") p = p " " $i
         }
       }
       function median(s,   a, n, i, j, t) {
         n = split(s, a, " ")
         for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
         return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
       }
       END {
         printf "personal access token: %.0f ns/request (median of%s)\n", median(p), p
         printf "OAuth2 access token:   %.0f ns/request (median of%s)\n", median(o), o
         printf "OAuth2 throughput = %.1f %% of the personal token'"'"'s (median of%s)\n", median(share), share
       }'
