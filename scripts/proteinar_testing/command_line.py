"""The `proteinar` command line as the checks call it: a command with `--json`, its answer parsed,
and a failure said with the exit status and the end of stderr (or the start of what it printed)."""
import json
import subprocess


def answer(binary, *arguments, timeout=600):
    """`binary ARGUMENTS --json`, parsed; RuntimeError naming the exit status or the bad output."""
    p = subprocess.run([binary, *arguments, "--json"], capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        raise RuntimeError(f"not JSON ({e}): {p.stdout[:200]!r}")
