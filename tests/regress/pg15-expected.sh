#!/usr/bin/env bash
# Regenerates tests/regress/expected/*.out from PostgreSQL 15 (what the golden
# files must match). Starts PostgreSQL with ../shared/tools/pg15.sh; each script
# runs in a fresh database, with psql flags and filtering identical to the
# test harness (crates/sluice/tests/regress.rs).
# Usage: tests/regress/pg15-expected.sh [NAME ...]
set -euo pipefail
cd "$(dirname "$0")"
"../../../shared/tools/pg15.sh" start >/dev/null
# Timings, and the lines of VACUUM VERBOSE's report that carry xids or
# resource use, differ from run to run: dropped, as the harness drops them.
FILTER='/^Time: /d; /^(removable cutoff|new relfrozenxid|new relminmxid|avg read rate|buffer usage|WAL usage|system usage): /d; s/^psql:[^:]+:[0-9]+: //'
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls sql | sed 's/\.sql$//'))
# A script whose first line is `-- pg15-settings: name=value ...` needs
# PostgreSQL started with those settings (e.g. a postmaster-context one the
# shared server has otherwise): it runs against a private PostgreSQL 15 on a
# free port, initialised for this run and removed afterwards.
private_expected() {
  local name=$1 settings=$2 dir port opts=""
  dir=$(mktemp -d /tmp/pg15-private.XXXXXX); chown postgres:postgres "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  for kv in $settings; do opts="$opts -c $kv"; done
  su postgres -c "/usr/lib/postgresql/15/bin/initdb -D $dir/data -A trust -U postgres --no-locale -E UTF8" >/dev/null
  su postgres -c "/usr/lib/postgresql/15/bin/pg_ctl -D $dir/data -l $dir/log -w -o '-p $port -k /tmp -c listen_addresses=127.0.0.1 $opts' start" >/dev/null
  psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE regress_expected" >/dev/null 2>&1
  PGTZ=UTC psql -X -a -h 127.0.0.1 -p "$port" -U postgres -d regress_expected -f "sql/$name.sql" 2>&1 \
    | sed -E "$FILTER" > "expected/$name.out"
  su postgres -c "/usr/lib/postgresql/15/bin/pg_ctl -D $dir/data -w stop -m fast" >/dev/null
  rm -rf "$dir"
}
# A script whose first line is `-- sluice-only: reason` tests what sluice
# does where PostgreSQL 15 cannot be the reference (it refuses a clause that
# PostgreSQL implements): its expected output is sluice's own, reviewed by
# hand, and is never regenerated here.
for name in "${names[@]}"; do
  if head -1 "sql/$name.sql" | grep -q '^-- sluice-only:'; then
    echo "expected/$name.out: sluice-only, kept"
    continue
  fi
  settings=$(sed -n '1s/^-- pg15-settings: //p' "sql/$name.sql")
  if [ -n "$settings" ]; then
    private_expected "$name" "$settings"
    echo "expected/$name.out"
    continue
  fi
  psql -X -q -h 127.0.0.1 -p 5432 -U postgres -d postgres -c "DROP DATABASE IF EXISTS regress_expected" -c "CREATE DATABASE regress_expected" >/dev/null 2>&1
  PGTZ=UTC psql -X -a -h 127.0.0.1 -p 5432 -U postgres -d regress_expected -f "sql/$name.sql" 2>&1 \
    | sed -E "$FILTER" > "expected/$name.out"
  echo "expected/$name.out"
done
