#!/usr/bin/env bash
# Regenerates tests/dump/pg15/app.sql: what PostgreSQL 15's pg_dump writes for
# the database tests/dump/app.sql makes, which crates/sluice/tests/pg_dump.rs
# restores into sluice. Starts PostgreSQL with ../shared/tools/pg15.sh. The
# `\restrict` lines of newer pg_dump releases are dropped so that any psql 15
# reads the file.
set -euo pipefail
cd "$(dirname "$0")"
"../../../shared/tools/pg15.sh" start >/dev/null
psql=(psql -X -q -h 127.0.0.1 -p 5432 -U postgres)
"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS sluice_dump_fixture" -c "CREATE DATABASE sluice_dump_fixture"
"${psql[@]}" -d sluice_dump_fixture -v ON_ERROR_STOP=1 -f app.sql >/dev/null
pg_dump -h 127.0.0.1 -p 5432 -U postgres sluice_dump_fixture | grep -v '^\\\(un\)\?restrict ' > pg15/app.sql
"${psql[@]}" -d postgres -c "DROP DATABASE sluice_dump_fixture"
echo "pg15/app.sql: $(wc -l < pg15/app.sql) lines"
