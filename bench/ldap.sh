#!/usr/bin/env bash
# LDAP sign-in source (issue 16): server-side sign-in time against a local
# slapd (target <= 20 ms) and a synchronisation of 10,000 directory users
# (target <= 30 s, memory flat: peak heap reported). Needs slapd
# (apt-get install slapd ldap-utils); the program starts its own.
# Usage: bash bench/ldap.sh [users] [sign-ins] [database URL of an empty database]
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/ldap -users "${1:-10000}" -signins "${2:-200}" -db "${3:-}"
