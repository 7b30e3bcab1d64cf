"""Reading back a QR code the page drew: ZXing-C++ (scripts/tools/decode-qr.py) on the picture."""
import base64
import os
import subprocess
import sys
import tempfile

from .paths import DECODE_QR


def decode_qr(data_url):
    """The text of the QR code in a `data:image/png;base64,…` picture, or why it could not be read."""
    path = os.path.join(tempfile.mkdtemp(prefix="proteinar-qr-"), "qr.png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(data_url.split(",", 1)[1]))
    r = subprocess.run([sys.executable, DECODE_QR, path], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else f"(decode failed: {r.stdout.strip()} {r.stderr.strip()[-300:]})"
