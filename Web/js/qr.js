// The QR code a desktop shows so a phone can open the same page: drawn on a canvas with Kazuhiko
// Arase's QR Code Generator (Debian's node-qrcode-generator, served by this server at
// /vendor/qrcode-generator/ and loaded the first time a code is drawn), and the address of a page
// that a phone can reach, for it to carry.

const QR_JS = '/vendor/qrcode-generator/qrcode.js';
import { phoneAddress } from './api.js';
import { loadLibrary } from './web-libraries.js';

/**
 * `page` (an address of this app) at an address a phone can reach: {url}, or {url: null, why}.
 * This computer's own address (localhost, 127.0.0.1) is every phone's own too: the server is asked
 * for one a phone can reach (its --public-url, or the computer's network address).
 */
export async function addressForPhones(page) {
  const here = new URL(page);
  if (!/^(localhost|127\.|\[::1\]$)/.test(here.hostname)) return { url: page };
  try {
    const answer = await phoneAddress();
    if (answer.address) {
      const there = new URL(answer.address);
      here.protocol = there.protocol;
      here.host = there.host;
      return { url: here.href };
    }
    return { url: null, why: `This page's address (${here.host}) is this computer's own: a phone cannot open it. ${answer.reason ?? ''}`.trim() };
  } catch {
    return { url: null, why: `This page's address (${here.host}) is this computer's own: a phone cannot open it. Open ProteinAR by the computer's network address instead.` };
  }
}

/**
 * Draws `text` as a QR code (error correction M, the smallest version that holds it) on `canvas`,
 * sized to the symbol and its quiet zone, labelled for assistive technology. Resolves to false when
 * the library is not on this server or the text does not fit a QR code.
 */
export async function drawQR(canvas, text, { moduleSize = 4, margin = 4 } = {}) {
  const qrcode = await loadLibrary(QR_JS, 'qrcode');
  if (!qrcode) return false;
  qrcode.stringToBytes = qrcode.stringToBytesFuncs['UTF-8'];  // an address may hold any character
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  try { qr.make(); } catch { return false; }
  const size = qr.getModuleCount();
  const px = (size + margin * 2) * moduleSize;
  canvas.width = px;
  canvas.height = px;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `QR code of ${text}`);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, px, px);
  ctx.fillStyle = '#000';
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (qr.isDark(y, x)) ctx.fillRect((margin + x) * moduleSize, (margin + y) * moduleSize, moduleSize, moduleSize);
    }
  }
  return true;
}
