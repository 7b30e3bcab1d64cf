// The libraries the page loads from this server's /vendor/NAME/ (Debian's packages, served as they
// are: scripts/tools/install-web-libraries.sh), each once, when a screen first needs it. Classic
// scripts that set a global: the promise gives that global, or null when the library is not there.

const loading = new Map();

export function loadLibrary(src, global, { css } = {}) {
  if (!loading.has(src)) {
    loading.set(src, new Promise((resolve) => {
      if (css) {
        const link = document.createElement('link');
        link.rel = 'stylesheet';
        link.href = css;
        document.head.append(link);
      }
      const script = document.createElement('script');
      script.src = src;
      script.onload = () => resolve(window[global] ?? null);
      script.onerror = () => resolve(null);
      document.head.append(script);
    }));
  }
  return loading.get(src);
}
