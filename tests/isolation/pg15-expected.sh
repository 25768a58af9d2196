#!/usr/bin/env bash
# Regenerates tests/isolation/expected/*.out from PostgreSQL 15's
# isolationtester output (what sluice must print too). Starts PostgreSQL with
# ../shared/tools/pg15.sh; each spec runs in a fresh database, exactly as the
# harness (crates/sluice/tests/isolation.rs) runs it against sluice.
# Usage: tests/isolation/pg15-expected.sh [NAME ...]
set -euo pipefail
cd "$(dirname "$0")"
"../../../shared/tools/pg15.sh" start >/dev/null
IT=/usr/lib/postgresql/15/lib/pgxs/src/test/isolation/isolationtester
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls specs | sed 's/\.spec$//'))
for name in "${names[@]}"; do
  psql -X -q -h 127.0.0.1 -p 5432 -U postgres -d postgres -c "DROP DATABASE IF EXISTS isolation_expected" -c "CREATE DATABASE isolation_expected" >/dev/null 2>&1
  PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres PGTZ=UTC "$IT" "dbname=isolation_expected" < "specs/$name.spec" > "expected/$name.out" 2>&1 || true
  echo "expected/$name.out"
done
