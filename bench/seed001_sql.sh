#!/usr/bin/env bash
# Seed 001 through SQL, on sluice and PostgreSQL 15 in the same run:
#   CREATE TABLE t (id bigint, name text, memo text);
#   INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, N) i;
#   SELECT count(*) FROM t;                      -- cold: the first scan sets hint bits
#   SELECT count(*) FROM t;  (REPEAT more times) -- warm: the median is printed
# Prints each step's seconds on both servers and the ratio sluice/PostgreSQL
# (below 1.0 means sluice is faster), as psql's \timing reports them inside one
# session per server (psql's own start-up, 50-80 ms here, would otherwise
# flatten the ratios of short statements). Both servers run with their default
# shared_buffers (128MB), which the 1M-row table (about 160MB) does not fit in,
# so every scan reads part of the table from the OS cache.
# Usage: bench/seed001_sql.sh [ROWS] [REPEAT]   (REPEAT defaults to 5)
# The sluice binary is built with cargo into $CARGO_TARGET_DIR (default ./target),
# unless SLUICE_BIN names one to run instead (to compare two builds under the
# same conditions); PG15_SH names pg15.sh when the checkout is not next to shared/.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
repeat=${2:-5}
pg15=${PG15_SH:-../shared/tools/pg15.sh}
"$pg15" start >/dev/null
if [ -z "${SLUICE_BIN:-}" ]; then
  cargo build --release -q -p sluice
  SLUICE_BIN=${CARGO_TARGET_DIR:-./target}/release/sluice
fi
data=$(mktemp -d)
port=55433
"$SLUICE_BIN" -D "$data" -p $port 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do psql -X -h 127.0.0.1 -p $port -U postgres -c 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done

# run PORT REPEAT -> one line of milliseconds per statement: the steps, the cold
# count, then REPEAT warm counts. One psql session with \timing, so the times
# are the server's (plus a local round trip), not psql's start-up.
run() {
  {
    echo '\timing on'
    printf '%s;\n' "${steps[@]}" "$count"
    for _ in $(seq "$2"); do echo "$count;"; done
  } | psql -X -q -h 127.0.0.1 -p "$1" -U postgres -d postgres 2>/dev/null | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
line() { printf '%-90.90s %9.3f %9.3f %7.2f\n' "$1" "$(echo "$2 / 1000" | bc -l)" "$(echo "$3 / 1000" | bc -l)" "$(echo "$2 / $3" | bc -l)"; }

count="SELECT count(*) FROM t"
steps=(
  "DROP TABLE IF EXISTS t"
  "CREATE TABLE t (id bigint, name text, memo text)"
  "INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, $rows) i"
)
mapfile -t s < <(run $port "$repeat")
mapfile -t p < <(run 5432 "$repeat")
n=$((${#steps[@]} + 1 + repeat))
[ ${#s[@]} -eq $n ] && [ ${#p[@]} -eq $n ] || { echo "expected $n timings, got ${#s[@]} and ${#p[@]}" >&2; exit 1; }
printf '%-90s %9s %9s %7s\n' step sluice pg15 ratio
for i in "${!steps[@]}"; do line "${steps[$i]}" "${s[$i]}" "${p[$i]}"; done
c=${#steps[@]}
line "$count  (cold: first after load)" "${s[$c]}" "${p[$c]}"
line "$count  (warm: median of $repeat)" "$(printf '%s\n' "${s[@]:$((c + 1))}" | median)" "$(printf '%s\n' "${p[@]:$((c + 1))}" | median)"
psql -X -q -h 127.0.0.1 -p 5432 -U postgres -c "DROP TABLE t"
