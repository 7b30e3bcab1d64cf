// What this page's Content-Security-Policy lets it load, read once from the headers the server sends
// (it sends them on every answer). The page asks before it tries something the policy may forbid
// (map tiles from another host, playing back a recording from a blob: address), so that it can say
// so and do without, instead of being refused by the browser.

let policy = null;

/** The policies: for each, its directives, name -> list of sources (lower case); none when there is no header. */
export function pagePolicy() {
  policy ??= fetch(location.pathname, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' })
    .then((response) => parse(response.headers.get('Content-Security-Policy')))
    .catch(() => []);
  return policy;
}

/** Several policies (several headers, joined by commas) all apply; each is kept. */
function parse(header) {
  const policies = [];
  for (const text of (header ?? '').split(',')) {
    const directives = new Map();
    for (const part of text.split(';')) {
      const [name, ...sources] = part.trim().toLowerCase().split(/\s+/).filter(Boolean);
      if (name && !directives.has(name)) directives.set(name, sources);
    }
    if (directives.size) policies.push(directives);
  }
  return policies;
}

/**
 * Whether `directive` (such as 'img-src' or 'media-src') of every policy allows `url`: an absolute
 * address such as 'https://tile.openstreetmap.org/', or a scheme alone such as 'blob:'.
 */
export async function allows(directive, url) {
  const policies = await pagePolicy();
  return policies.every((directives) => {
    const sources = directives.get(directive) ?? directives.get('default-src');
    return !sources || sources.some((source) => matches(source, url));
  });
}

function matches(source, url) {
  const target = new URL(url, location.href);
  const scheme = target.protocol;  // 'https:', 'blob:'
  if (source === scheme) return true;
  if (source === "'none'") return false;
  if (source === "'self'") return target.origin === location.origin;
  if (source === '*') return !['blob:', 'data:', 'filesystem:'].includes(scheme);
  // host-source: [scheme://]host[:port][/path], host possibly starting with *.
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([^/:]+|\*)(?::(\d+|\*))?(\/.*)?$/.exec(source);
  if (!m || source.startsWith("'")) return false;
  const [, sourceScheme, wildcard, host, port] = m;
  if (sourceScheme && `${sourceScheme}:` !== scheme && !(sourceScheme === 'http' && scheme === 'https:')) return false;
  if (!sourceScheme && !['http:', 'https:'].includes(scheme)) return false;
  if (wildcard ? !target.hostname.endsWith(`.${host}`) : host !== '*' && host !== target.hostname) return false;
  if (port && port !== '*' && port !== (target.port || (scheme === 'https:' ? '443' : '80'))) return false;
  return true;
}
