#!/usr/bin/env bash
# Seed 000's HOT/fillfactor experiment (../shared/scenarios/seed000_hot_fillfactor.sql)
# on sluice and PostgreSQL 15 in the same run: t (id bigint PRIMARY KEY, a, b,
# c, d text = md5(id) with an index each, last_seen timestamptz not indexed),
# N rows, VACUUM and CHECKPOINT; then UPDATE of last_seen of every tenth row
# (never an indexed column, so each update may be heap-only), once at
# fillfactor 100 and once at fillfactor 70 (where the new versions find room
# on their own page).
# Prints per server and fillfactor: the UPDATE's seconds, the WAL it wrote
# (pg_wal_lsn_diff of pg_current_wal_lsn() around it), the growth of the
# heap and of the five indexes, and the ratios sluice/PostgreSQL.
# Usage: bench/hot_fillfactor.sh [ROWS]
# The sluice binary is built with cargo into $CARGO_TARGET_DIR (default ./target),
# unless SLUICE_BIN names one to run instead; PG15_SH names pg15.sh when the
# checkout is not next to shared/.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
pg15=${PG15_SH:-../shared/tools/pg15.sh}
"$pg15" start >/dev/null
if [ -z "${SLUICE_BIN:-}" ]; then
  cargo build --release -q -p sluice
  SLUICE_BIN=${CARGO_TARGET_DIR:-./target}/release/sluice
fi
data=$(mktemp -d)
port=55435
"$SLUICE_BIN" -D "$data" -p $port 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do psql -X -h 127.0.0.1 -p $port -U postgres -c 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done

q() { psql -X -qAt -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "$2"; }
indexes="pg_relation_size('t_pkey') + pg_relation_size('t_a') + pg_relation_size('t_b') + pg_relation_size('t_c') + pg_relation_size('t_d')"

# run PORT FILLFACTOR -> "seconds wal_bytes heap_growth index_growth"
run() {
  local port=$1 ff=$2
  q "$port" "DROP TABLE IF EXISTS t" >/dev/null 2>&1
  q "$port" "CREATE TABLE t (id bigint PRIMARY KEY, a text, b text, c text, d text, last_seen timestamptz) WITH (autovacuum_enabled = off, fillfactor = $ff)" >/dev/null
  q "$port" "INSERT INTO t SELECT i, md5(i::text), md5(i::text), md5(i::text), md5(i::text), now() FROM generate_series(1, $rows) i" >/dev/null
  for col in a b c d; do q "$port" "CREATE INDEX t_$col ON t ($col)" >/dev/null; done
  q "$port" "VACUUM t" >/dev/null
  q "$port" "CHECKPOINT" >/dev/null
  local heap0 idx0 lsn0 start end
  heap0=$(q "$port" "SELECT pg_relation_size('t')")
  idx0=$(q "$port" "SELECT $indexes")
  lsn0=$(q "$port" "SELECT pg_current_wal_lsn()" 2>/dev/null || echo "")
  start=$(date +%s.%N)
  q "$port" "UPDATE t SET last_seen = now() WHERE id % 10 = 0" >/dev/null
  end=$(date +%s.%N)
  local wal="n/a"
  if [ -n "$lsn0" ]; then wal=$(q "$port" "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0')::bigint"); fi
  echo "$(echo "$end - $start" | bc) $wal $(( $(q "$port" "SELECT pg_relation_size('t')") - heap0 )) $(( $(q "$port" "SELECT $indexes") - idx0 ))"
}

ratio() { if [[ "$1" =~ ^[0-9.]+$ && "$2" =~ ^[0-9.]+$ ]] && [ "$(echo "$2 > 0" | bc)" = 1 ]; then printf '%.2f' "$(echo "$1 / $2" | bc -l)"; else echo "n/a"; fi; }

printf '%-4s %-9s %10s %14s %14s %14s\n' ff server seconds wal_bytes heap_growth index_growth
for ff in 100 70; do
  read -r s_t s_w s_h s_i <<<"$(run $port $ff)"
  read -r p_t p_w p_h p_i <<<"$(run 5432 $ff)"
  printf '%-4s %-9s %10.2f %14s %14s %14s\n' "$ff" sluice "$s_t" "$s_w" "$s_h" "$s_i"
  printf '%-4s %-9s %10.2f %14s %14s %14s\n' "$ff" postgres "$p_t" "$p_w" "$p_h" "$p_i"
  printf '%-4s %-9s %10s %14s %14s %14s\n' "$ff" ratio "$(ratio "$s_t" "$p_t")" "$(ratio "$s_w" "$p_w")" "$(ratio "$s_h" "$p_h")" "$(ratio "$s_i" "$p_i")"
done
q $port "DROP TABLE t" >/dev/null
q 5432 "DROP TABLE t" >/dev/null
