#!/usr/bin/env bash
# Seed 001 through SQL, on sluice and PostgreSQL 15 in the same run:
#   CREATE TABLE t (id bigint, name text, memo text);
#   INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, N) i;
#   SELECT count(*) FROM t;                      -- cold: the first scan sets hint bits
#   SELECT count(*) FROM t;  (REPEAT more times) -- warm: the median is printed
# Prints each step's seconds on both servers and the ratio sluice/PostgreSQL
# (below 1.0 means sluice is faster). Both servers run with their default
# shared_buffers (128MB), which the 1M-row table (about 160MB) does not fit in,
# so every scan reads part of the table from the OS cache.
# Times include psql's start-up and connection (about 10 ms on each side).
# Usage: bench/seed001_sql.sh [ROWS] [REPEAT]   (REPEAT defaults to 5)
# The sluice binary is built with cargo into $CARGO_TARGET_DIR (default ./target);
# PG15_SH names pg15.sh when the checkout is not next to shared/.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
repeat=${2:-5}
pg15=${PG15_SH:-../shared/tools/pg15.sh}
"$pg15" start >/dev/null
cargo build --release -q -p sluice
data=$(mktemp -d)
port=55433
"${CARGO_TARGET_DIR:-./target}"/release/sluice -D "$data" -p $port 2>/dev/null &
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
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
line() { printf '%-90.90s %9.3f %9.3f %7.2f\n' "$1" "$2" "$3" "$(echo "$2 / $3" | bc -l)"; }

count="SELECT count(*) FROM t"
steps=(
  "DROP TABLE IF EXISTS t"
  "CREATE TABLE t (id bigint, name text, memo text)"
  "INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, $rows) i"
)
printf '%-90s %9s %9s %7s\n' step sluice pg15 ratio
for sql in "${steps[@]}"; do
  line "$sql" "$(timed $port "$sql" 2>/dev/null)" "$(timed 5432 "$sql" 2>/dev/null)"
done
line "$count  (cold: first after load)" "$(timed $port "$count")" "$(timed 5432 "$count")"
s=$(for _ in $(seq "$repeat"); do timed $port "$count"; done | median)
p=$(for _ in $(seq "$repeat"); do timed 5432 "$count"; done | median)
line "$count  (warm: median of $repeat)" "$s" "$p"
psql -X -q -h 127.0.0.1 -p 5432 -U postgres -c "DROP TABLE t"
