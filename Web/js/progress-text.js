// What the status line says while the server works, in words a person reads: "Preparing the 3D
// model… 1.2 MB" rather than the server's own log line ("wrote 1234567 bytes"). The server's
// progress events carry a stage (download, read, store, mesh, write) and a terse message meant for
// its command line; the page says the stage in its own words and keeps only the size from the
// message. Someone waiting for a model or an entry another person asked for first gets the same
// events, from that one conversion, and so sees the same words.

/** A size for people: "2.1 GB", "1.2 MB" from a million bytes up, else whole kilobytes ("340 KB", at least 1). */
export function formatSize(bytes) {
  if (!(bytes >= 0)) return '';
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} KB`;
}

/** `text` with its byte counts as sizes: "more than 2147483648 bytes" → "more than 2.1 GB" (under 1,000 they stay). */
export function readableSizes(text) {
  return String(text).replace(/(\d{4,})\s*bytes\b/g, (_, n) => formatSize(Number(n)));
}

// "downloaded 5645892 bytes" → 5645892; null when the message names no size.
function bytesIn(message) {
  const match = /(\d+)\s*bytes\b/.exec(message ?? '');
  return match ? Number(match[1]) : null;
}

/**
 * The words for one progress event of the server ({stage, message, fraction}).
 * @param {{stage?: string, message?: string, fraction?: number|null}} progress
 * @param {{name?: string, format?: string, opening?: boolean}} about what is being worked on: the
 *   entry or file's name (fetching, uploading), the model's format (glb for the 3D view, usdz for
 *   AR), and `opening` for an entry opened from the archive (kept on the server, not added to the library)
 */
export function describeProgress(progress, { name = '', format = '', opening = false } = {}) {
  const bytes = bytesIn(progress?.message);
  const size = bytes === null ? '' : ` ${formatSize(bytes)}`;
  const model = format === 'usdz' ? 'AR model' : format === 'glb' ? '3D model' : 'model';
  const it = name ? ` ${name}` : '';
  switch (progress?.stage) {
    case 'download': return `Downloading${it} from the archive…${size}`;
    case 'read': return `Reading${it}…`;
    case 'store':
      if (/starter/i.test(progress.message ?? '')) return 'Adding the starter molecules to the library…';
      return opening ? `Keeping${it} on this server…` : `Adding${it} to the library…`;
    case 'mesh': return `Building the ${model}${name ? ` of ${name}` : ''}…`;
    case 'write': return `Preparing the ${model}…${size}`;
    default:
      // A stage this page does not know yet: the server's words, with any byte count made readable.
      return readableSizes(progress?.message ?? 'Working…');
  }
}
