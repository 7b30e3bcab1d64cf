"""PostgreSQL for the checks: the throw-away server scripts/tools/start-postgres.sh starts (the one
place that knows how), the URL scripts/test hands on in PROTEINAR_TEST_POSTGRES_URL, and a fresh
database on it for one check."""
import os
import subprocess
import urllib.parse

from .paths import START_POSTGRES
from .report import Fail, Skip


def test_url():
    """PROTEINAR_TEST_POSTGRES_URL, or "" when it is not set."""
    return os.environ.get("PROTEINAR_TEST_POSTGRES_URL", "").strip()


def start():
    """Starts the throw-away server (installing Debian's package if needed); its URL. Raises
    CalledProcessError when it does not start."""
    url = subprocess.run([START_POSTGRES], check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    if not url:
        raise subprocess.CalledProcessError(1, START_POSTGRES, "no URL printed")
    return url


def stop():
    subprocess.run([START_POSTGRES, "stop"], check=False)


def fresh_database(tag, url=None):
    """A new database on the test server (`url`, default test_url()) and a function that drops it.
    Skip when there is no test server."""
    url = url or test_url()
    if not url:
        raise Skip("PROTEINAR_TEST_POSTGRES_URL is not set (scripts/tools/start-postgres.sh)")
    name = f"rooms_check_{os.getpid()}_{tag}"
    u = urllib.parse.urlsplit(url)
    r = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qc", f"CREATE DATABASE {name}"], capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail(f"psql CREATE DATABASE {name}: {r.stderr.strip()}")
    fresh = urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + name, u.query, u.fragment))

    def drop():
        subprocess.run(["psql", url, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
    return fresh, drop
