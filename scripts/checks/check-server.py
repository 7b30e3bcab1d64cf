#!/usr/bin/env python3
"""Acceptance of issue 4's run command: `proteinar serve` on a fresh data folder starts with the
starter library listed, and its model endpoints return files that pass the independent checkers
(Pixar's compliance checker with ARKit rules for USDZ; trimesh, pygltflib, assimp for GLB).

    scripts/checks/check-server.py [PROTEINAR_BIN]     (default $PROTEINAR_BIN, else .build/release/proteinar)

Every step counts: a listing that is short or has a molecule without a description, a model
that does not answer 200, or a checker that fails makes the run exit 1."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/, for proteinar_testing
from proteinar_testing.http_client import http  # noqa: E402
from proteinar_testing.paths import CHECK_MODELS, CHECK_USDZ, ROOT  # noqa: E402
from proteinar_testing.server import ServerProcess, ServerDidNotStart  # noqa: E402


def main():
    sys.stdout.reconfigure(line_buffering=True)  # our lines before the checkers' output
    default = os.environ.get("PROTEINAR_BIN", os.path.join(ROOT, ".build", "release", "proteinar"))
    binary = sys.argv[1] if len(sys.argv) > 1 else default
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        sys.exit(f"check-server: {binary} is not an executable (build it: swift build -c release)")
    try:
        server = ServerProcess(binary, name="check-server")
    except ServerDidNotStart as e:
        sys.exit(f"check-server: {e}")
    bad = 0
    try:
        print(f"server at {server.url}")
        listing = http(server, "GET", "/api/molecules?limit=100&sort=id")
        page = listing.json if listing.status == 200 and isinstance(listing.json, dict) else None
        if page is None:
            print(f"FAIL the starter library: GET /api/molecules: {listing!r}")
            return 1
        ids = [m["id"] for m in page.get("molecules", [])]
        if page.get("total", 0) < 10:
            print(f"FAIL the starter library: only {page.get('total')} starter molecules")
            bad = 1
        for m in page.get("molecules", []):
            if not m.get("description"):
                print(f"FAIL {m['id']} has no description")
                bad = 1
        if not ids:
            print("FAIL the starter library: no starter molecules listed")
            return 1
        print(f"starter molecules: {len(ids)}: {' '.join(ids)}")
        files = {"glb": [], "usdz": []}
        for mid in ids:
            for fmt in ("glb", "usdz"):
                r = http(server, "GET", f"/api/molecules/{mid}/model.{fmt}", headers={"Accept": "*/*"}, timeout=600)
                if r.status != 200:
                    print(f"FAIL {mid}.{fmt}: HTTP {r.status}")
                    bad = 1
                    continue
                path = os.path.join(server.work, f"{mid}.{fmt}")
                with open(path, "wb") as f:
                    f.write(r.raw)
                files[fmt].append(path)
        if files["glb"] and subprocess.run([sys.executable, CHECK_MODELS, *files["glb"]]).returncode != 0:
            bad = 1
        if files["usdz"] and subprocess.run(["python3", CHECK_USDZ, *files["usdz"]]).returncode != 0:
            bad = 1
        return bad
    finally:
        server.close()


if __name__ == "__main__":
    sys.exit(main())
