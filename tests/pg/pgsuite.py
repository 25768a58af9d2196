"""What `tests/pg/isolation` and `tests/pg/regress` share: the fetched PostgreSQL
15 source tree, the server under test, and the environment pg_regress gives its
clients.

Design. The suites are PostgreSQL's, run by PostgreSQL's own clients (psql and
isolationtester from postgresql-client-15), so the only thing of ours in the loop
is the server. That server is started and owned here, not by the caller, because a
suite of a few hundred files must survive the server's failures: a panic that
takes the process down, a session that never returns, a lock that is never
released. Before every spec or file the harness checks that the server still
answers (`SELECT 1` within a few seconds); if it does not, or if the previous spec
timed out (its sessions may still hold locks), the server is killed and started
again, so one failure never turns the rest of the run into failures. The server's
stderr goes to a log file, and each spec or file is told what the server logged
while it ran, so a panic is attributed to the spec or file that triggered it.

`--port` runs against a server somebody else started (e.g. a real PostgreSQL 15,
to check the harness itself); such a server cannot be restarted, only checked.

The client environment is pg_regress's (`initialize_environment` in
src/test/regress/pg_regress.c): PGTZ, PGDATESTYLE, intervalstyle through
PGOPTIONS, LC_MESSAGES=C, no LANGUAGE/LC_ALL, and no PG* variables that could
point the clients elsewhere.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PSQL = shutil.which("psql") or "/usr/lib/postgresql/15/bin/psql"


def source_tree():
    """source_tree -- the PostgreSQL 15 source tree, fetched on first use."""
    out = subprocess.run([str(HERE / "fetch-source")], check=True, stdout=subprocess.PIPE, text=True)
    return Path(out.stdout.strip().splitlines()[-1])


# More `-c name=value` options for every client session (the regression suite sets
# statement_timeout; see tests/pg/regress).
EXTRA_PGOPTIONS = ""


def client_env(port, appname):
    """client_env -- the environment pg_regress gives psql and isolationtester."""
    # Drop libpq's PG* variables (not PG_ABS_SRCDIR and friends, which scripts read).
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("PG") and not k.startswith("PG_")) and k not in ("LANGUAGE", "LC_ALL")}
    env.update(
        PGHOST="127.0.0.1",
        PGPORT=str(port),
        PGUSER="postgres",
        PGAPPNAME=appname,
        PGTZ="America/Los_Angeles",
        PGDATESTYLE="Postgres, MDY",
        PGOPTIONS=" -c intervalstyle=postgres_verbose" + EXTRA_PGOPTIONS,
        LC_MESSAGES="C",
    )
    return env


def free_port():
    """free_port -- a port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(port, *sql, db="postgres", timeout=30):
    """psql -- runs the statements `sql` through psql, each its own `-c` (so each
    its own transaction, as DROP DATABASE requires); returns (ok, output). Never
    raises on timeout: a stuck server is an answer."""
    try:
        r = subprocess.run(
            [PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db] + [a for s in sql for a in ("-c", s)],
            env=client_env(port, "pg_regress"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        return r.returncode == 0, r.stdout
    except subprocess.TimeoutExpired:
        return False, "timeout"


def run_client(argv, port, appname, stdin_path, out_path, timeout):
    """run_client -- runs a client (psql, isolationtester) with its stdin from
    `stdin_path` and stdout and stderr interleaved into `out_path`, as pg_regress's
    `cmd < in > out 2>&1`. Returns "ok", "timeout" or "exit N". On timeout the
    client's whole process group is killed, so nothing is left hanging."""
    with open(stdin_path, "rb") as stdin, open(out_path, "wb") as out:
        proc = subprocess.Popen(
            argv, env=client_env(port, appname), stdin=stdin, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return "timeout"
    return "ok" if rc == 0 else f"exit {rc}"


class Server:
    """A sluice server this harness owns: a fresh data directory on a free port,
    restarted (on a fresh directory) when it stops answering."""

    def __init__(self, binary, settings, log_path):
        self.binary = binary
        self.settings = settings
        self.log_path = Path(log_path)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path.write_text("")
        self.log_offset = 0
        self.proc = None
        self.dir = None
        self.port = None
        self.restarts = 0

    def start(self, fresh=True):
        """start -- (re)starts the binary, on a new data directory unless `fresh`
        is false, and waits until it answers a query; returns whether it does."""
        old_dir = self.dir
        if not fresh and old_dir:
            self.dir = None  # keep it from stop()
        self.stop()
        self.dir = old_dir if not fresh and old_dir else tempfile.mkdtemp(prefix="sluice-pg-")
        self.port = free_port()
        log = open(self.log_path, "ab")
        log.write(f"=== sluice starting on port {self.port}, data {self.dir}\n".encode())
        log.flush()
        args = [self.binary, "-D", self.dir, "-p", str(self.port)]
        for s in self.settings:
            args += ["-c", s]
        self.proc = subprocess.Popen(args, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                return False
            if psql(self.port, "SELECT 1", timeout=10)[0]:
                return True
            time.sleep(0.2)
        return False

    def healthy(self):
        """healthy -- whether the server process runs and answers SELECT 1 soon."""
        return self.proc is not None and self.proc.poll() is None and psql(self.port, "SELECT 1", timeout=10)[0]

    def diagnose(self):
        """diagnose -- why the server needs a restart, or None when it is fine."""
        if self.proc is None:
            return "not started"
        if self.proc.poll() is not None:
            return f"server had exited (status {self.proc.returncode})"
        if not self.healthy():
            return "server did not answer SELECT 1"
        return None

    def restart(self, keep_data):
        """restart -- kills the server and starts it again, on the same data
        directory when `keep_data` (through crash recovery); returns whether it
        answers."""
        self.restarts += 1
        if keep_data and self.dir and self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        return self.start(fresh=not keep_data)

    def ensure(self, force=False):
        """ensure -- restarts the server on a fresh data directory if it is dead
        or wedged (or `force`); returns why it restarted, or None."""
        why = "restarted after a timeout" if force else self.diagnose()
        if why is None:
            return None
        if self.proc is None:
            ok = self.start()
        else:
            ok = self.restart(keep_data=False)
        if not ok:
            raise RuntimeError(f"sluice did not start; see {self.log_path}")
        return why if why != "not started" else None

    def stop(self):
        """stop -- SIGTERM, then SIGKILL if it does not exit within 20 s; removes
        the data directory."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=20)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()
        self.proc = None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def new_log(self):
        """new_log -- what the server logged since the last call."""
        with open(self.log_path, "rb") as f:
            f.seek(self.log_offset)
            data = f.read()
        self.log_offset += len(data)
        return data.decode("utf-8", "replace")


class ExternalServer:
    """A server somebody else runs on 127.0.0.1:PORT; it can only be checked."""

    def __init__(self, port):
        self.port = port
        self.restarts = 0

    def ensure(self, force=False):
        if self.diagnose():
            sys.exit(f"the server on port {self.port} does not answer")
        return None

    def diagnose(self):
        return None if psql(self.port, "SELECT 1", timeout=10)[0] else "server did not answer SELECT 1"

    def restart(self, keep_data):
        sys.exit(f"the server on port {self.port} stopped answering and cannot be restarted from here")

    def stop(self):
        pass

    def new_log(self):
        return ""


def panics(log):
    """panics -- the panic messages in a stretch of server log (Rust's default
    hook prints `thread 'NAME' panicked at FILE:LINE:COL:` and the message on the
    next line)."""
    lines = log.splitlines()
    found = []
    for i, line in enumerate(lines):
        if re.search(r"panicked at ", line):
            msg = lines[i + 1].strip() if i + 1 < len(lines) else ""
            found.append(f"{line.strip()} {msg}".strip())
    return found


def stop_on_sigterm():
    """stop_on_sigterm -- SIGTERM (a test runner's timeout, kill PID) unwinds like
    an exception, so the `finally` that stops the server runs."""
    def handler(signum, frame):
        raise SystemExit(f"terminated by signal {signum}")
    signal.signal(signal.SIGTERM, handler)


def make_server(args, settings, log_path):
    """make_server -- the server the command line asks for: `--port` (external)
    or `--sluice BIN` (default: target/debug/sluice of this repository)."""
    if args.port:
        return ExternalServer(args.port)
    stop_on_sigterm()
    binary = args.sluice or os.environ.get("SLUICE_BIN") or str(REPO / "target/debug/sluice")
    if not os.access(binary, os.X_OK):
        sys.exit(f"no sluice binary at {binary} (cargo build -p sluice, or --sluice BIN)")
    return Server(binary, settings, log_path)


def add_server_args(parser):
    parser.add_argument("--sluice", help="the sluice binary to start (default: target/debug/sluice, or $SLUICE_BIN)")
    parser.add_argument("--port", type=int, help="run against a server already listening on 127.0.0.1:PORT")
    parser.add_argument("--results", help="where results go (default: tests/pg/results/SUITE)")


def create_database(server, name, timeout=60):
    """create_database -- pg_regress's drop_database_if_exists and create_database:
    a fresh database from template0 with the C message/number/time locales, hex
    bytea and the Default timezone abbreviations. The ALTER DATABASE settings are
    tried one by one, so a setting the server lacks only loses that setting.
    Returns the settings that failed (empty on success), or None when the database
    could not be created at all."""
    ok, out = psql(server.port, "SET client_min_messages = warning", f'DROP DATABASE IF EXISTS "{name}"',
                   timeout=timeout)
    if not ok:
        return None
    ok, out = psql(server.port, f'CREATE DATABASE "{name}" TEMPLATE=template0', timeout=timeout)
    if not ok:
        return None
    failed = []
    for setting in ("lc_messages TO 'C'", "lc_monetary TO 'C'", "lc_numeric TO 'C'", "lc_time TO 'C'",
                    "bytea_output TO 'hex'", "timezone_abbreviations TO 'Default'"):
        ok, out = psql(server.port, f'ALTER DATABASE "{name}" SET {setting}', timeout=timeout)
        if not ok:
            failed.append(setting.split()[0])
    return failed
