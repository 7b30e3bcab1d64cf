#!/usr/bin/env python3
"""Decode the QR code in each PNG with an independent decoder (ZXing-C++).

    scripts/tools/decode-qr.py PNG...

Prints the decoded text of each image, one line per image in argument order
(an image with no decodable QR code gets `NO QR CODE: path` on stderr and an
empty line on stdout, so lines stay aligned with the arguments). Exits 1 if
any image has no decodable QR code, 2 on a usage or setup error.

Used to check the QR code the web app draws (Web/js/qr.js): the decoder is
a separate implementation of ISO/IEC 18004, so a symbol it reads back to the
exact input text is a valid one.

Needs these PyPI packages (install them into a venv, e.g.
`python3 -m venv /tmp/qrvenv && /tmp/qrvenv/bin/pip install zxing-cpp pillow`
and run this script with that venv's python):
- zxing-cpp  (imported as `zxingcpp`; the decoder)
- pillow     (imported as `PIL`; reads the PNGs)
"""
import sys


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import zxingcpp
        from PIL import Image
    except ImportError as error:
        print(f'decode-qr: {error}; install the PyPI packages zxing-cpp and pillow', file=sys.stderr)
        return 2

    failed = 0
    for path in argv[1:]:
        try:
            with Image.open(path) as image:
                # Grey levels are all a QR decoder needs; this also drops alpha.
                results = zxingcpp.read_barcodes(image.convert('L'), formats=zxingcpp.BarcodeFormat.QRCode)
        except OSError as error:
            results = []
            print(f'decode-qr: {path}: {error}', file=sys.stderr)
        if results:
            # Keep the text on one line even if it holds a newline.
            print(results[0].text.replace('\n', '\\n'))
        else:
            failed += 1
            print(f'NO QR CODE: {path}', file=sys.stderr)
            print()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
