// A lesson step's text (the lessons contract's markup) as DOM nodes, never through innerHTML: what
// a teacher types cannot become markup or script. The markup: paragraphs are separated by a blank
// line; a single newline is a line break; **bold**, *italic*, and [words](https://…) links (http and
// https only: anything else stays plain text, as typed). Markers without their closing pair stay as
// typed too.

const LINK = /^\[([^\]\n]+)\]\(([^()\s]+)\)/;

/** Whether `href` is an http or https address (what a link may point at). */
function webAddress(href) {
  try {
    const url = new URL(href);
    return (url.protocol === 'http:' || url.protocol === 'https:') && /^https?:\/\//i.test(href);
  } catch {
    return false;
  }
}

// The inline markup of one line of text, appended to `parent`. `depth` keeps nesting shallow.
function inline(text, parent, depth = 0) {
  let plain = '';
  const flush = () => { if (plain) { parent.append(document.createTextNode(plain)); plain = ''; } };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const link = rest[0] === '[' ? LINK.exec(rest) : null;
    if (link && webAddress(link[2])) {
      flush();
      const a = document.createElement('a');
      a.href = link[2];
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      a.textContent = link[1];
      parent.append(a);
      i += link[0].length;
      continue;
    }
    if (depth < 4 && rest.startsWith('**')) {
      const end = text.indexOf('**', i + 2);
      if (end > i + 2) {
        flush();
        const strong = document.createElement('strong');
        inline(text.slice(i + 2, end), strong, depth + 1);
        parent.append(strong);
        i = end + 2;
        continue;
      }
      plain += '**';  // no closing pair: as typed
      i += 2;
      continue;
    } else if (depth < 4 && rest[0] === '*' && rest[1] !== '*' && rest[1] !== undefined && rest[1] !== ' ') {
      // The closing '*' is a single one (not half of a '**').
      let end = i + 1;
      for (;;) {
        end = text.indexOf('*', end);
        if (end < 0 || text[end + 1] !== '*') break;
        end += 2;
      }
      if (end > i + 1) {
        flush();
        const em = document.createElement('em');
        inline(text.slice(i + 1, end), em, depth + 1);
        parent.append(em);
        i = end + 1;
        continue;
      }
    }
    plain += text[i];
    i += 1;
  }
  flush();
}

/**
 * Renders `text` (the lessons markup) into `container`, replacing what it held: one <p> per
 * paragraph, <br> for single newlines, <strong>, <em> and <a> (http and https only).
 * @param {string} text
 * @param {HTMLElement} container
 * @returns {HTMLElement} container
 */
export function renderLessonText(text, container) {
  const paragraphs = String(text ?? '').replace(/\r\n?/g, '\n').split(/\n[ \t]*\n+/).map((p) => p.replace(/^\n+|\n+$/g, '')).filter((p) => p.trim());
  container.replaceChildren(...paragraphs.map((paragraph) => {
    const p = document.createElement('p');
    paragraph.split('\n').forEach((line, k) => {
      if (k) p.append(document.createElement('br'));
      inline(line, p);
    });
    return p;
  }));
  return container;
}
