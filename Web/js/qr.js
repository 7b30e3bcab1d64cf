// The QR code a desktop shows so a phone can open the same page: drawn on a canvas with Kazuhiko
// Arase's QR Code Generator (Debian's node-qrcode-generator, served by this server at
// /vendor/qrcode-generator/ and loaded the first time a code is drawn).

const QR_JS = '/vendor/qrcode-generator/qrcode.js';
import { loadLibrary } from './web-libraries.js';

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
