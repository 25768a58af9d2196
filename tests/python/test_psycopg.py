"""psycopg 3 against a running sluice server (port in SLUICE_PORT).

Run by crates/sluice/tests/python.rs, which starts the server. Covers what a
Python application relies on: parameters (client- and server-side binding),
binary results (records too), a Que job worker, transactions (commit, rollback, context manager), server errors
mapped to psycopg's exception classes by SQLSTATE, and the session staying
usable after each error.

`python3 test_psycopg.py insert-loop N` is the crash test's client instead: it
inserts rows one transaction at a time and prints each id once its COMMIT was
acknowledged, until the server dies.
"""
import datetime
import decimal
import os
import sys
import time
import unittest

import psycopg
from psycopg import errors


def connect(**kwargs):
    port = int(os.environ["SLUICE_PORT"])
    return psycopg.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres", **kwargs)


class PsycopgTest(unittest.TestCase):
    def setUp(self):
        self.conn = connect(autocommit=True)
        self.table = f"t_{self._testMethodName}"
        self.conn.execute(f"DROP TABLE IF EXISTS {self.table}")

    def tearDown(self):
        self.conn.close()

    def test_parameters_and_types(self):
        t = self.table
        self.conn.execute(
            f"CREATE TABLE {t} (id bigint NOT NULL, name text, price numeric(10,2),"
            " ok boolean, at timestamptz, day date, raw bytea, ratio double precision)"
        )
        at = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)
        rows = [
            (i, f"n{i}", decimal.Decimal(i) / 4, i % 2 == 0, at, datetime.date(2024, 1, i), bytes([i, 0, 255]), i / 3)
            for i in range(1, 11)
        ]
        with self.conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {t} VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows)
            cur.execute(f"SELECT * FROM {t} WHERE id > %s AND name <> %s ORDER BY id", (5, "n7"))
            got = cur.fetchall()
        self.assertEqual([r[0] for r in got], [6, 8, 9, 10])
        self.assertEqual(got[0][1:4], ("n6", decimal.Decimal("1.50"), True))
        self.assertEqual(got[0][4], at)
        self.assertEqual(got[0][5], datetime.date(2024, 1, 6))
        self.assertEqual(got[0][6], bytes([6, 0, 255]))
        self.assertAlmostEqual(got[0][7], 2.0)
        # NULL parameters and NULL results.
        row = self.conn.execute("SELECT %s::text IS NULL, NULL::int", (None,)).fetchone()
        self.assertEqual(row, (True, None))

    def test_binary_results(self):
        with self.conn.cursor(binary=True) as cur:
            cur.execute(
                "SELECT 42::int4, 9000000000::int8, 1.5::float8, 'héllo'::text, true,"
                " 12.345::numeric, '2024-02-29'::date, '\\x00ff'::bytea, 3::int2"
            )
            row = cur.fetchone()
        self.assertEqual(
            row,
            (42, 9000000000, 1.5, "héllo", True, decimal.Decimal("12.345"), datetime.date(2024, 2, 29), b"\x00\xff", 3),
        )

    def test_server_side_binding(self):
        with connect(autocommit=True, prepare_threshold=0) as conn:
            for i in range(3):
                row = conn.execute("SELECT %s::int + 1, %s::text || 'x'", (i, str(i))).fetchone()
                self.assertEqual(row, (i + 1, f"{i}x"))

    def test_untyped_parameters_in_the_select_list(self):
        # psycopg sends str parameters with type 0 (unspecified): in the
        # select list they are text, in Describe and in every execution.
        t = self.table
        self.conn.execute(f"CREATE TABLE {t} (n int, s text)")
        with connect(autocommit=True, prepare_threshold=0) as conn:
            for i in range(3):
                cur = conn.execute("SELECT %s AS v", (f"x{i}",))
                self.assertEqual(cur.fetchall(), [(f"x{i}",)])
                self.assertEqual(cur.description[0].type_code, 25)
                self.assertEqual(conn.execute("SELECT %s, %s", ("a", "b")).fetchone(), ("a", "b"))
                self.assertEqual(conn.execute("SELECT %s::int + 1", ("4",)).fetchone(), (5,))
                cur = conn.execute(f"INSERT INTO {t} VALUES (%s, %s) RETURNING n, s", (str(i), "y"))
                self.assertEqual(cur.fetchone(), (i, "y"))
            self.assertEqual(conn.execute("SELECT 'lit' AS v").description[0].type_code, 25)

    def test_que_workers(self):
        # The Que gem's enqueue and lock query (seed 003) as a Ruby worker
        # sends them: server-side binding, a json argument bound as unknown,
        # a whole-row subquery, results in text and in binary (records too).
        t = self.table
        self.conn.execute(
            f"CREATE TABLE {t} (priority smallint NOT NULL DEFAULT 100,"
            " run_at timestamptz NOT NULL DEFAULT now(), job_id bigserial NOT NULL,"
            " job_class text NOT NULL, args json NOT NULL DEFAULT '[]'::json,"
            " error_count integer NOT NULL DEFAULT 0, last_error text, queue text NOT NULL DEFAULT '',"
            " PRIMARY KEY (queue, priority, run_at, job_id))"
        )
        for job_class, args in [("First", '[1, "a"]'), ("Second", '{"x":  [1, 2]}')]:
            self.conn.execute(
                f"INSERT INTO {t} (job_class, args, run_at) VALUES (%s, %s, now() - interval '1 minute')",
                (job_class, args),
            )
        lock = (
            "WITH RECURSIVE job AS ("
            " SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked"
            f" FROM (SELECT j FROM {t} AS j WHERE queue = %s AND run_at <= now()"
            " ORDER BY priority, run_at, job_id LIMIT 1) AS t1"
            " UNION ALL (SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked"
            f" FROM (SELECT (SELECT j FROM {t} AS j WHERE queue = %s AND run_at <= now()"
            " AND (priority, run_at, job_id) > (job.priority, job.run_at, job.job_id)"
            " ORDER BY priority, run_at, job_id LIMIT 1) AS j"
            " FROM job WHERE NOT job.locked LIMIT 1) AS t1))"
            " SELECT job_id, job_class, args FROM job WHERE locked LIMIT 1"
        )
        with connect(autocommit=True, prepare_threshold=0) as w1, connect(
            autocommit=True, prepare_threshold=0
        ) as w2:
            self.assertEqual(w1.execute(lock, ("", "")).fetchone(), (1, "First", [1, "a"]))
            with w2.cursor(binary=True) as cur:
                cur.execute(lock, ("", ""))
                self.assertEqual(cur.fetchone(), (2, "Second", {"x": [1, 2]}))
                self.assertEqual(cur.execute(lock, ("", "")).fetchone()[0], 2)
            w2.execute("SELECT pg_advisory_unlock_all()")
            self.assertEqual(w2.execute(lock, ("", "")).fetchone()[0], 2)
            with w1.cursor(binary=True) as cur:
                sql = f"SELECT ROW(job_id, job_class, args, last_error), (j).args FROM {t} j WHERE job_id = 2"
                row = cur.execute(sql).fetchone()
            self.assertEqual(row, ((2, "Second", {"x": [1, 2]}, None), {"x": [1, 2]}))

    def test_transactions(self):
        t = self.table
        self.conn.execute(f"CREATE TABLE {t} (id int NOT NULL, v int)")
        with connect() as conn:
            conn.execute(f"INSERT INTO {t} VALUES (1, 1)")
            conn.rollback()
            conn.execute(f"INSERT INTO {t} VALUES (2, 2)")
            conn.commit()
            with conn.transaction():
                conn.execute(f"INSERT INTO {t} VALUES (3, 3)")
            with self.assertRaises(errors.DivisionByZero):
                with conn.transaction():
                    conn.execute(f"INSERT INTO {t} VALUES (4, 4)")
                    conn.execute("SELECT 1/0")
        ids = [r[0] for r in self.conn.execute(f"SELECT id FROM {t} ORDER BY id")]
        self.assertEqual(ids, [2, 3])

    def test_server_errors(self):
        t = self.table
        self.conn.execute(f"CREATE TABLE {t} (id int NOT NULL)")
        cases = [
            ("SELECT * FROM no_such_table", errors.UndefinedTable, "42P01"),
            ("SELEC 1", errors.SyntaxError, "42601"),
            ("SELECT 1/0", errors.DivisionByZero, "22012"),
            ("SELECT 'abc'::int", errors.InvalidTextRepresentation, "22P02"),
            (f"INSERT INTO {t} VALUES (NULL)", errors.NotNullViolation, "23502"),
            ("SET no_such_setting = 1", errors.UndefinedObject, "42704"),
        ]
        for sql, exc, sqlstate in cases:
            with self.subTest(sql=sql):
                with self.assertRaises(exc) as caught:
                    self.conn.execute(sql)
                self.assertEqual(caught.exception.sqlstate, sqlstate)
                self.assertEqual(self.conn.execute("SELECT 1").fetchone(), (1,))
        # A failed transaction block refuses statements until ROLLBACK.
        with connect() as conn:
            with self.assertRaises(errors.DivisionByZero):
                conn.execute("SELECT 1/0")
            with self.assertRaises(errors.InFailedSqlTransaction):
                conn.execute("SELECT 1")
            conn.rollback()
            self.assertEqual(conn.execute("SELECT 2").fetchone(), (2,))


class SessionEndTest(unittest.TestCase):
    """Timeouts that end the session arrive as FATAL errors with their SQLSTATE."""

    def test_transaction_timeout_ends_a_lock_wait(self):
        with connect(autocommit=True) as holder:
            holder.execute("DROP TABLE IF EXISTS tt_lock")
            holder.execute("CREATE TABLE tt_lock (id int)")
            holder.execute("BEGIN")
            holder.execute("LOCK TABLE tt_lock")
            conn = connect(autocommit=True)
            conn.execute("SET transaction_timeout = '200ms'")
            conn.execute("BEGIN")
            with self.assertRaises(errors.TransactionTimeout) as caught:
                conn.execute("LOCK TABLE tt_lock")
            self.assertEqual(caught.exception.sqlstate, "25P04")
            self.assertTrue(conn.closed)
            holder.execute("ROLLBACK")

    def test_idle_in_transaction_timeout(self):
        conn = connect(autocommit=True)
        conn.execute("SET idle_in_transaction_session_timeout = '200ms'")
        conn.execute("BEGIN")
        time.sleep(0.5)
        with self.assertRaises(errors.IdleInTransactionSessionTimeout):
            conn.execute("SELECT 1")


def insert_loop(count):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE IF NOT EXISTS crash_rows (id int NOT NULL, payload text)")
    for i in range(1, count + 1):
        try:
            conn.execute("INSERT INTO crash_rows VALUES (%s, repeat('x', 200))", (i,))
        except psycopg.Error:
            return
        print(i, flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "insert-loop":
        insert_loop(int(sys.argv[2]))
    else:
        unittest.main(verbosity=2)
