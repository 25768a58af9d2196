#!/usr/bin/env bash
# Seed 001 load through SQL, on sluice and PostgreSQL 15 in the same run:
#   CREATE TABLE t (id bigint, name text, memo text);
#   INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, N) i;
#   SELECT count(*) FROM t;
# Prints each step's seconds on both servers and the ratio sluice/PostgreSQL
# (below 1.0 means sluice is faster). Usage: bench/seed001_sql.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
pg15=../shared/tools/pg15.sh
"$pg15" start >/dev/null
cargo build --release -q -p sluice
data=$(mktemp -d)
port=55433
./target/release/sluice -D "$data" -p $port 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do psql -X -h 127.0.0.1 -p $port -U postgres -c 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done

timed() { # port sql -> seconds
  local t0 t1
  t0=$(date +%s.%N)
  psql -X -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "$2" >/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
steps=(
  "DROP TABLE IF EXISTS t"
  "CREATE TABLE t (id bigint, name text, memo text)"
  "INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, $rows) i"
  "SELECT count(*) FROM t"
)
printf '%-90s %9s %9s %7s\n' step sluice pg15 ratio
for sql in "${steps[@]}"; do
  s=$(timed $port "$sql" 2>/dev/null); p=$(timed 5432 "$sql" 2>/dev/null)
  printf '%-90.90s %9.3f %9.3f %7.2f\n' "$sql" "$s" "$p" "$(echo "$s / $p" | bc -l)"
done
psql -X -q -h 127.0.0.1 -p 5432 -U postgres -c "DROP TABLE t"
