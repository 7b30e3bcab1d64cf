"""`proteinar serve` as a child process: on a port of its own choosing (--port 0, read back from its
`listening on` line), with a fresh data folder, SQLite or --database-url, an archive URL, the
starter library or not; the web app built into the binary, or the folder PROTEINAR_WEB_ROOT names
(to try edits without a rebuild). It can be stopped, killed (SIGKILL, as a crash would) and started
again on the same data. Its stdout and stderr go to one log file in its work folder."""
import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from .report import Fail, short

LISTENING = re.compile(rb"listening on http://[^:\s/]+:(\d+)")
_running = []


class ServerDidNotStart(Fail):
    """The server exited, or did not say it was listening in time; the message holds its log's end."""


class ServerProcess:
    """One `proteinar serve`. `work`: a folder for its data and log (made and removed here when not
    given; when given, the data folder is a new one inside it and everything is left there).
    Attributes once started: url (= base), port, ws (ws://…), pid, proc, data_dir, log_path, work."""
    count = 0

    def __init__(self, binary, *, work=None, data_dir=None, database_url=None, rcsb_url=None, starter=True,
                 extra=(), name="server", timeout=60):
        ServerProcess.count += 1
        self.binary = os.path.abspath(binary)
        self.owns_work = work is None
        self.work = self.tmp = work or tempfile.mkdtemp(prefix=f"proteinar-{name}-")
        if data_dir is None:
            data_dir = os.path.join(self.work, "data") if self.owns_work else tempfile.mkdtemp(prefix="data-", dir=self.work)
        self.data_dir = data_dir
        self.database_url = database_url
        self.log_path = os.path.join(self.work, f"{name}-{ServerProcess.count}.log")
        self.timeout = timeout
        self.args = [self.binary, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", data_dir]
        if not starter:
            self.args.append("--no-starter")
        if database_url:
            self.args += ["--database-url", database_url]
        if rcsb_url:
            self.args += ["--rcsb-url", rcsb_url]
        if os.environ.get("PROTEINAR_WEB_ROOT"):
            self.args += ["--web-root", os.environ["PROTEINAR_WEB_ROOT"]]
        self.args += list(extra)
        self.proc = self.url = self.base = self.ws = self.port = None
        _running.append(self)
        try:
            self.start()
        except BaseException:
            self.close()
            raise

    @property
    def pid(self):
        return self.proc.pid

    def start(self):
        """Starts the process (again, on the same data) and waits for its `listening on` line."""
        with open(self.log_path, "ab") as log:
            log.write(f"\n=== {' '.join(self.args)}\n".encode())
            log.flush()  # before the server writes to the same file
            offset = log.tell()
            self.proc = subprocess.Popen(self.args, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.timeout
        while True:
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                m = LISTENING.search(f.read())
            if m:
                break
            exited = self.proc.poll()
            if exited is not None or time.monotonic() > deadline:
                self.kill()
                with open(self.log_path, "rb") as f:
                    f.seek(offset)
                    tail = " ".join(f.read().decode(errors="replace").split())[-400:]
                why = f"exited with {exited}" if exited is not None else f"did not say it was listening within {self.timeout:g} s"
                raise ServerDidNotStart(f"the server {why} (log {self.log_path}: {short(tail)})")
            time.sleep(0.05)
        self.port = int(m.group(1))
        self.url = self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        """SIGKILL, the way a crash or an out-of-memory kill ends it: no chance to clean up."""
        if self.running():
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self):
        """SIGTERM, and SIGKILL after 10 s."""
        if self.running():
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def restart(self):
        self.kill()
        self.start()

    def close(self):
        """Stops it and removes its work folder when it made that folder."""
        self.stop()
        if self in _running:
            _running.remove(self)
        if self.owns_work:
            shutil.rmtree(self.work, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def stop_all():
    """Stops every server this process started and has not closed."""
    for server in list(_running):
        server.stop()


@atexit.register
def _kill_leftovers():
    for server in list(_running):
        try:
            server.kill()
        except Exception:  # noqa: BLE001 — exiting anyway
            pass
