#!/usr/bin/env bash
# Regenerates tests/regress/expected/*.out from PostgreSQL 15 (what the golden
# files must match). Starts PostgreSQL with ../shared/tools/pg15.sh; each script
# runs in a fresh database, with psql flags and filtering identical to the
# test harness (crates/sluice/tests/regress.rs).
# Usage: tests/regress/pg15-expected.sh [NAME ...]
set -euo pipefail
cd "$(dirname "$0")"
"../../../shared/tools/pg15.sh" start >/dev/null
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls sql | sed 's/\.sql$//'))
for name in "${names[@]}"; do
  psql -X -q -h 127.0.0.1 -p 5432 -U postgres -d postgres -c "DROP DATABASE IF EXISTS regress_expected" -c "CREATE DATABASE regress_expected" >/dev/null 2>&1
  PGTZ=UTC psql -X -a -h 127.0.0.1 -p 5432 -U postgres -d regress_expected -f "sql/$name.sql" 2>&1 \
    | sed -E '/^Time: /d; s/^psql:[^:]+:[0-9]+: //' > "expected/$name.out"
  echo "expected/$name.out"
done
