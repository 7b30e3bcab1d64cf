// Keeps a canvas's drawing buffer the size the canvas shows at, in device pixels, for the 3D viewer
// (viewer.js): at most MAX_PIXEL_RATIO of them a CSS pixel, as more costs fill rate for little to see.

const MAX_PIXEL_RATIO = 2;

// A canvas with no CSS size takes its size from its width/height
// attributes; at a pixel ratio above 1 every resize would then grow it.
// Pin such a canvas to its current CSS size to break that loop.
export function pinAutoSize(canvas) {
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  canvas.width += 1;
  canvas.height += 1;
  const autoWidth = canvas.clientWidth !== width;
  const autoHeight = canvas.clientHeight !== height;
  canvas.width -= 1;
  canvas.height -= 1;
  if (autoWidth && width > 0) canvas.style.width = `${width}px`;
  if (autoHeight && height > 0) canvas.style.height = `${height}px`;
}

/**
 * Resizes the canvas's drawing buffer whenever its CSS size changes, calling `onResize` after each
 * change, until `signal` aborts. Returns the ResizeObserver (to disconnect), or null where there is
 * none and the window's resize events stand in.
 */
export function followDisplaySize(canvas, onResize, signal) {
  const apply = (width, height) => {
    width = Math.max(1, Math.round(width));
    height = Math.max(1, Math.round(height));
    if (canvas.width === width && canvas.height === height) return;
    canvas.width = width;
    canvas.height = height;
    onResize();
  };

  if (typeof ResizeObserver === 'undefined') {
    const resized = () => {
      const ratio = Math.min(window.devicePixelRatio || 1, MAX_PIXEL_RATIO);
      if (canvas.clientWidth > 0) apply(canvas.clientWidth * ratio, canvas.clientHeight * ratio);
    };
    window.addEventListener('resize', resized, { signal });
    resized();
    return null;
  }

  const observer = new ResizeObserver((entries) => {
    const entry = entries[entries.length - 1];
    const ratio = window.devicePixelRatio || 1;
    const devicePixels = entry.devicePixelContentBoxSize?.[0];
    if (devicePixels) {
      if (devicePixels.inlineSize === 0 || devicePixels.blockSize === 0) return;
      const scale = Math.min(1, MAX_PIXEL_RATIO / ratio);
      apply(devicePixels.inlineSize * scale, devicePixels.blockSize * scale);
    } else {
      const box = entry.contentBoxSize?.[0];
      const width = box ? box.inlineSize : entry.contentRect.width;
      const height = box ? box.blockSize : entry.contentRect.height;
      if (width === 0 || height === 0) return;
      const capped = Math.min(ratio, MAX_PIXEL_RATIO);
      apply(width * capped, height * capped);
    }
  });
  try {
    observer.observe(canvas, { box: 'device-pixel-content-box' });
  } catch {
    observer.observe(canvas);
  }
  return observer;
}
