"""15. Slow downloads of a padded file (issue 29, finding 6): a PDB padded with 99 MB of REMARK
lines (about 340 KB gzipped), uploaded by an account, then 48 anonymous downloads at once that read
slowly. Before, each inflated the whole file (4.9 GB held); now a client that accepts gzip is sent
the stored gzip as it is, and one that does not is refused (406, saying how to ask) for a file over
8 MB instead of the server inflating it."""
import gzip
import socket
import time

from proteinar_testing import attack_tools as tools

PADDING = 99_000_000
DOWNLOADS = 48
SOURCE = "127.0.0.70"
ATOM = "ATOM      1  CA  GLY A   1      11.104   6.134  -6.504  1.00  0.00           C  \n"


def padded_pdb():
    line = "REMARK 999 " + "PADDING " * 8 + "\n"
    return ("HEADER    PADDED FILE\n" + line * (PADDING // len(line)) + ATOM + "END\n").encode()


def check_file_downloads(a):
    s = a.serve(name="attack15")
    (owner,) = a.admin_then(s, "Padder")
    packed = gzip.compress(padded_pdb(), 6)
    r = tools.try_request(s, "POST", "/api/molecules?name=padded.pdb.gz", body=packed, token=owner.token, timeout=300,
                          content_type="application/gzip")
    a.check("the padded file is uploaded (within the account's storage)", r.status in (200, 201), f"HTTP {r.status} {tools.message(r)}")
    mid = (r.json or {}).get("id") if r.status in (200, 201) else None
    if not mid:
        return
    plain = tools.try_request(s, "GET", f"/api/molecules/{mid}/file", source=SOURCE, timeout=60)
    a.figure(f"the padded file ({len(packed) / 1e3:.0f} KB gzipped, {PADDING / 1e6:.0f} MB of REMARK lines) without Accept-Encoding: "
             f"HTTP {plain.status} ({tools.message(plain)})")
    a.check("without Accept-Encoding: gzip, a file over 8 MB is refused with how to ask (406), not inflated",
            plain.status == 406 and "gzip" in tools.message(plain), f"HTTP {plain.status}")
    socks = []
    for _ in range(DOWNLOADS):
        c = socket.socket()
        c.bind((SOURCE, 0))
        c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c.connect(("127.0.0.1", s.port))
        c.sendall(f"GET /api/molecules/{mid}/file HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n".encode())
        socks.append(c)
    # Read slowly: 1 KB from each every half second for 5 s, while the server holds what it sends.
    got = [b""] * DOWNLOADS
    for _ in range(10):
        for i, c in enumerate(socks):
            c.settimeout(2)
            try:
                got[i] += c.recv(1024)
            except OSError:
                pass
        time.sleep(0.5)
    peak = a.peak_now(s)
    heads = [g.split(b"\r\n\r\n", 1)[0].decode(errors="replace") for g in got]
    gzipped = sum(1 for h in heads if h.startswith("HTTP/1.1 200") and "content-encoding: gzip" in h.lower())
    for c in socks:
        c.close()
    a.figure(f"{DOWNLOADS} slow downloads with Accept-Encoding: gzip: {gzipped} answered 200 gzip; peak RSS {peak:.0f} MB",
             table=f"{DOWNLOADS} slow downloads: {gzipped}× 200 gzip (stored bytes), peak {peak:.0f} MB")
    a.check(f"all {DOWNLOADS} are sent the stored gzip (200, Content-Encoding: gzip)", gzipped == DOWNLOADS, f"{gzipped} of {DOWNLOADS}")
