"""20-21. Files that cost far more to read than their size (issue 29, findings 1 and 2).

20. An XYZ lattice of francium atoms 1.15 Å apart, 512,000 atoms (about 1.4 MB gzipped) and
    1,000,000 (2.8 MB): before, the bond search kept every pair within francium's covalent range
    (hundreds of bonds per atom: 4.1 and 8.2 GB, 229 million bonds), and each anonymous
    ball-and-stick model of a new size rebuilt them (70 s). Now the search leaves at most 12 bonds on
    an atom and skips neighbourhoods denser than any matter; 16 cookie-less model requests of
    distinct sizes are abandoned after 3 s while another visitor's uncached 1AKE model is asked for.
21. `1\\n\\nH 0 0 0\\n` nine million times (192 KB gzipped, 99 MB inflated) and two million times:
    before, 8.4 GB and 1.6 GB left behind, every thumbnail reading all frames again. Now a file of
    more than 1,000 models (frames) is refused (413) naming the limit and the line; a file of 1,000
    frames is read, and its thumbnails and models cost what one frame costs.

In both: another visitor's uncached 1AKE model in under 2 s while the attacker works, and the
server's CPU back to idle within 5 s after the attacker leaves."""
import gzip

from proteinar_testing import attack_tools as tools

from .visitor import ORDINARY_LIMIT_S, idle_after, ordinary_model_during

ATTACKER = "127.0.0.80"


def lattice(n, spacing, element="Fr"):
    lines = [f"{n ** 3}\n", "lattice\n"]
    for i in range(n):
        for j in range(n):
            for k in range(n):
                lines.append(f"{element} {i * spacing:.3f} {j * spacing:.3f} {k * spacing:.3f}\n")
    return "".join(lines).encode()


def upload(a, s, owner, name, packed):
    return tools.try_request(s, "POST", f"/api/molecules?name={name}", body=packed, token=owner.token, timeout=300,
                             content_type="application/gzip")


def check_dense_coordinates(a):
    s = a.serve(name="attack20")
    (owner,) = a.admin_then(s, "Lattice")
    ids = {}
    for n, label in ((80, "512k"), (100, "1m")):
        packed = gzip.compress(lattice(n, 1.15), 6)
        r = upload(a, s, owner, f"francium-{label}.xyz.gz", packed)
        a.check(f"the {n ** 3:,}-atom lattice ({len(packed) / 1e6:.1f} MB gzipped) is read and stored",
                r.status in (200, 201), f"HTTP {r.status} {tools.message(r)}")
        if r.status not in (200, 201):
            continue
        ids[label] = r.json["id"]
        detail = tools.try_request(s, "GET", f"/api/molecules/{ids[label]}", token=owner.token)
        bonds = ((detail.json or {}).get("details") or {}).get("bonds", -1)
        peak = a.peak_now(s)
        a.figure(f"{n ** 3:,} francium atoms 1.15 Å apart: upload {r.elapsed:.1f} s, {bonds:,} bonds, peak RSS so far {peak:.0f} MB",
                 table=f"{label}: {r.elapsed:.1f} s, {bonds:,} bonds")
        a.check(f"{n ** 3:,} atoms: at most 12 bonds per atom ({6 * n ** 3:,} in all)", 0 <= bonds <= 6 * n ** 3, f"{bonds:,} bonds")
    if "1m" not in ids:
        return
    paths = [(f"/api/molecules/{ids['1m']}/model.glb?style=ball-and-stick&size={0.2 + 0.013 * i:.3f}", "") for i in range(16)]
    r, wave = ordinary_model_during(s, "0.31", lambda: tools.wave_at_once(s.port, paths, ATTACKER, 3.0))
    a.figure(f"16 cookie-less ball-and-stick models of the 1,000,000-atom lattice, distinct sizes, abandoned after 3 s: "
             f"{tools.status_counts([st for st, _ in wave])}; another visitor's uncached 1AKE model meanwhile: HTTP {r.status} in {r.elapsed:.2f} s",
             table=f"1AKE meanwhile {r.elapsed:.2f} s")
    a.check(f"another visitor's uncached 1AKE model answers in under {ORDINARY_LIMIT_S:.0f} s",
            r.status == 200 and r.elapsed < ORDINARY_LIMIT_S, f"HTTP {r.status} in {r.elapsed:.2f} s")
    a.check("each model request is answered, waits its turn, or is refused with Retry-After",
            all(st in (None, 200) or (st in (429, 503) and ra) for st, ra in wave), tools.status_counts([st for st, _ in wave]))
    idle_after(a, s, "after the ball-and-stick wave")


def check_many_frames(a):
    s = a.serve(name="attack21")
    (owner,) = a.admin_then(s, "Frames")
    for frames in (9_000_000, 2_000_000):
        packed = gzip.compress(b"1\n\nH 0 0 0\n" * frames, 6)
        answer, r = ordinary_model_during(s, f"0.{frames // 1_000_000}4", lambda: upload(a, s, owner, f"frames-{frames}.xyz.gz", packed),
                                          after=0.1)
        rss = tools.rss_mb(s.pid)
        a.figure(f"{frames:,} one-atom frames ({len(packed) / 1e3:.0f} KB gzipped): HTTP {r.status} in {r.elapsed:.2f} s "
                 f"({tools.message(r)}); RSS after {rss:.0f} MB; another visitor's uncached 1AKE model meanwhile: "
                 f"HTTP {answer.status} in {answer.elapsed:.2f} s",
                 table=f"{frames / 1e6:.0f} M frames {r.status} in {r.elapsed:.1f} s, 1AKE {answer.elapsed:.2f} s")
        a.check(f"another visitor's uncached 1AKE model answers in under {ORDINARY_LIMIT_S:.0f} s",
                answer.status == 200 and answer.elapsed < ORDINARY_LIMIT_S, f"HTTP {answer.status} in {answer.elapsed:.2f} s")
        a.check(f"{frames:,} frames → 413 naming the limit of models per file",
                r.status == 413 and "1000 models" in tools.message(r, 400), f"HTTP {r.status} {tools.message(r)}")
        a.check(f"…and nothing large is left behind (RSS after {rss:.0f} MB, under 400 MB)", rss is not None and rss < 400, f"{rss} MB")
    # The most frames accepted: read once; thumbnails and models of it do not read it again and again.
    r = upload(a, s, owner, "frames-1000.xyz.gz", gzip.compress(b"3\n\nO 0 0 0\nH 0.96 0 0\nH -0.24 0.93 0\n" * 1_000, 6))
    a.check("a file of 1,000 frames is read", r.status in (200, 201), f"HTTP {r.status} {tools.message(r)}")
    if r.status not in (200, 201):
        return
    mid = r.json["id"]
    paths = [(f"/api/molecules/{mid}/thumbnail.png?size={px}&style={style}", "")
             for px in (64, 128, 256, 512) for style in ("ball-and-stick", "spacefill", "sticks", "auto")]
    answer, wave = ordinary_model_during(s, "0.33", lambda: tools.wave_at_once(s.port, paths, ATTACKER, 10.0))
    a.figure(f"16 anonymous thumbnails of the 1,000-frame file: {tools.status_counts([st for st, _ in wave])}; "
             f"another visitor's uncached 1AKE model meanwhile: HTTP {answer.status} in {answer.elapsed:.2f} s",
             table=f"1,000 frames: thumbnails {tools.status_counts([st for st, _ in wave])}, 1AKE {answer.elapsed:.2f} s")
    a.check("thumbnails of the 1,000-frame file answer (or wait their turn, or 429/503 with Retry-After)",
            all(st in (None, 200) or (st in (429, 503) and ra) for st, ra in wave), tools.status_counts([st for st, _ in wave]))
    a.check(f"another visitor's uncached 1AKE model answers in under {ORDINARY_LIMIT_S:.0f} s",
            answer.status == 200 and answer.elapsed < ORDINARY_LIMIT_S, f"HTTP {answer.status} in {answer.elapsed:.2f} s")
    idle_after(a, s, "after the thumbnails")
