#!/usr/bin/env bash
# Seed 001 load benchmark: 1M rows of t(id bigint, name text, memo text) into
# sluice through the storage API, and into PostgreSQL 15 with INSERT ... SELECT
# (with and without the primary key), in the same run. Prints seconds, rows/s,
# WAL bytes per row and heap pages for each, and sluice's ratios.
# Usage: bench/seed001_load.sh [ROWS]        (starts PostgreSQL 15 via ../shared/tools/pg15.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
pg15=$(cd .. && pwd)/shared/tools/pg15.sh
[ -x "$pg15" ] || pg15=../shared/tools/pg15.sh
"$pg15" start >/dev/null

cargo build --release -q -p sluice-access --example load_seed001
sluice=$(./target/release/examples/load_seed001 "${SLUICE_BENCH_DIR:-./sluice-data-bench}" "$rows")
get() { sed -n "s/^$1=//p" <<<"$2"; }

pg_run() { # $1 = table DDL suffix; prints seconds, wal bytes, pages
  local psql=(psql -X -q -At -h 127.0.0.1 -p 5432 -U postgres -d postgres)
  "${psql[@]}" -c "DROP TABLE IF EXISTS bench_t" -c "CHECKPOINT" 2>/dev/null
  "${psql[@]}" -c "CREATE TABLE bench_t (id bigint $1, name text, memo text)"
  local lsn0 t0 t1 lsn1
  lsn0=$("${psql[@]}" -c "SELECT pg_current_wal_insert_lsn()")
  t0=$(date +%s.%N)
  "${psql[@]}" -c "INSERT INTO bench_t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, $rows) i"
  t1=$(date +%s.%N)
  lsn1=$("${psql[@]}" -c "SELECT pg_current_wal_insert_lsn()")
  echo "$(echo "$t1 - $t0" | bc -l) $("${psql[@]}" -c "SELECT pg_wal_lsn_diff('$lsn1', '$lsn0')") $("${psql[@]}" -c "SELECT pg_relation_size('bench_t') / 8192")"
  "${psql[@]}" -c "DROP TABLE bench_t"
}
plain=$(pg_run "")
keyed=$(pg_run "PRIMARY KEY")
read -r pg_sec pg_wal pg_pages <<<"$plain"
read -r pk_sec pk_wal pk_pages <<<"$keyed"

s_sec=$(get seconds "$sluice"); s_wal=$(get wal_bytes "$sluice"); s_pages=$(get heap_pages "$sluice")
printf '%-34s %10s %12s %14s %10s\n' "" seconds rows/s "WAL bytes/row" "heap pages"
row() { printf '%-34s %10.2f %12.0f %14.1f %10d\n' "$1" "$2" "$(echo "$rows / $2" | bc -l)" "$(echo "$3 / $rows" | bc -l)" "$4"; }
row "sluice (storage API, no index)" "$s_sec" "$s_wal" "$s_pages"
row "PostgreSQL 15 (SQL, no index)" "$pg_sec" "$pg_wal" "$pg_pages"
row "PostgreSQL 15 (SQL, primary key)" "$pk_sec" "$pk_wal" "$pk_pages"
printf 'ratios sluice/PostgreSQL (no index): time %.2f  WAL %.2f  heap size %.3f\n' \
  "$(echo "$s_sec / $pg_sec" | bc -l)" "$(echo "$s_wal / $pg_wal" | bc -l)" "$(echo "$s_pages / $pg_pages" | bc -l)"
