"""A throwaway PostgreSQL server (Debian's `postgresql` package) in a folder of its own: for the
gradebook of the hub test, the graders-side-by-side test and benchmark.

As root, the server runs as a system account made for it (PostgreSQL refuses to run as root);
otherwise as the current user.  Passwords are random, logins need them (scram), and the server
listens on 127.0.0.1 only, on a free port.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import socket
import subprocess
from dataclasses import dataclass

ACCOUNT = "autograd-pg"
OWNER = "autograd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_bin() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else None


def run(*command: str, user: str | None = None, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    if user:
        # found on our PATH: the environment given to the command may have a PATH without /usr/sbin
        command = (shutil.which("runuser") or "runuser", "-u", user, "--", *command)
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done


@dataclass
class Postgres:
    bin: str
    folder: str
    port: int
    superuser_password: str
    owner_password: str
    user: str | None

    @classmethod
    def start(cls, folder: str) -> Postgres:
        pg = postgres_bin()
        if pg is None:
            raise AssertionError("PostgreSQL is not installed (apt-get install postgresql)")
        user = None
        if os.geteuid() == 0:
            user = ACCOUNT
            if run("id", ACCOUNT, check=False).returncode != 0:  # another test process may be making it too
                run("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", ACCOUNT, check=False)
                run("id", ACCOUNT)
        os.makedirs(folder)
        if user:
            shutil.chown(folder, user)
        server = cls(pg, folder, free_port(), secrets.token_urlsafe(12), secrets.token_urlsafe(12), user)
        pwfile = os.path.join(folder, "pw")
        with open(pwfile, "w") as f:
            f.write(server.superuser_password)
        if user:
            shutil.chown(pwfile, user)
        data = os.path.join(folder, "data")
        run(os.path.join(pg, "initdb"), "-D", data, "--auth=scram-sha-256", "--username=postgres",
            f"--pwfile={pwfile}", user=user)  # fmt: skip
        os.remove(pwfile)
        options = f"-p {server.port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        run(os.path.join(pg, "pg_ctl"), "-D", data, "-o", options, "-l", os.path.join(folder, "log"), "-w", "start",
            user=user)  # fmt: skip
        server.sql(f"CREATE ROLE {OWNER} LOGIN PASSWORD '{server.owner_password}'")
        return server

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Runs one statement as the superuser; its rows, one per line, fields split by |."""
        env = {**os.environ, "PGPASSWORD": self.superuser_password}
        return run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database, "-At",
                   "-c", statement, env=env).stdout  # fmt: skip

    def database(self, name: str) -> str:
        """A new, empty database owned by the course's role; its SQLAlchemy URL."""
        self.sql(f"CREATE DATABASE {name} OWNER {OWNER}")
        return f"postgresql://{OWNER}:{self.owner_password}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        run(os.path.join(self.bin, "pg_ctl"), "-D", os.path.join(self.folder, "data"), "-m", "fast", "stop",
            user=self.user, check=False)  # fmt: skip
