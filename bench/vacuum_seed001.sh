#!/usr/bin/env bash
# Seed 001's VACUUM experiment on sluice and PostgreSQL 15 in the same run:
#   t (id bigint PRIMARY KEY, name text, memo text) + index on name, N rows;
#   delete 90% spread over the table (id % 10 <> 0), VACUUM;
#   delete the tail (id > N/10), VACUUM (truncates the empty pages).
# Prints each step's seconds on both servers with the ratio sluice/PostgreSQL
# (below 1.0: sluice is faster) and the heap and index sizes after each step.
# PostgreSQL may vacuum an index with a parallel worker and skips all-visible
# pages through its visibility map; sluice reads every page and vacuums the
# indexes one by one.
# Usage: bench/vacuum_seed001.sh [ROWS]
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
port=55434
"$SLUICE_BIN" -D "$data" -p $port 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do psql -X -h 127.0.0.1 -p $port -U postgres -c 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done

sizes="SELECT pg_relation_size('t') / 1048576 AS heap_mb, (pg_relation_size('t_pkey') + pg_relation_size('t_name')) / 1048576 AS index_mb, (SELECT count(*) FROM t) AS rows"
# Steps; after the ones marked with a leading "+" the sizes are printed too.
steps=(
  "DROP TABLE IF EXISTS t"
  "CREATE TABLE t (id bigint PRIMARY KEY, name text, memo text)"
  "INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, $rows) i"
  "+CREATE INDEX t_name ON t (name)"
  "+DELETE FROM t WHERE id % 10 <> 0"
  "+VACUUM t"
  "+DELETE FROM t WHERE id > $((rows / 10))"
  "+VACUUM t"
)
# run PORT -> one line per step: milliseconds, then heap|index|rows if marked.
run() {
  for step in "${steps[@]}"; do
    printf '\\timing on\n%s;\n\\timing off\n' "${step#+}"
    [[ $step == +* ]] && printf '%s;\n' "$sizes"
  done | psql -X -q -A -t -h 127.0.0.1 -p "$1" -U postgres -d postgres 2>/dev/null \
    | awk '/^Time: / { if (line != "") print line; line = $2; next } /\|/ { line = line " " $0 } END { print line }'
}
mapfile -t s < <(run $port)
mapfile -t p < <(run 5432)
[ ${#s[@]} -eq ${#steps[@]} ] && [ ${#p[@]} -eq ${#steps[@]} ] || { echo "expected ${#steps[@]} lines, got ${#s[@]} and ${#p[@]}" >&2; exit 1; }
printf '%-62s %8s %8s %6s  %-18s %-18s\n' step sluice pg15 ratio "sluice MB heap|idx|rows" "pg15"
for i in "${!steps[@]}"; do
  read -r st ss <<<"${s[$i]}"
  read -r pt ps <<<"${p[$i]}"
  printf '%-62.62s %8.3f %8.3f %6.2f  %-18s %-18s\n' "${steps[$i]#+}" "$(echo "$st / 1000" | bc -l)" \
    "$(echo "$pt / 1000" | bc -l)" "$(echo "$st / $pt" | bc -l)" "${ss:-}" "${ps:-}"
done
