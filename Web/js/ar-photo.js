// A photo in AR of what the person sees: the camera image with the molecule over it, where the
// browser lets the page read the camera (WebXR's `camera-access` feature, through
// XRWebGLBinding.getCameraImage); elsewhere the molecule alone over a transparent background, since
// the camera image is drawn by the browser underneath the page and never reaches it. The WebXR
// layer's own framebuffer cannot be read back, so both are drawn again into a frame of the page's.
import { createFrameTarget, createPresentProgram, deleteFrameTarget } from './gl.js';

const bindings = new WeakMap();   // session → its XRWebGLBinding, made once
const copiers = new WeakMap();    // GL context → the program that copies a texture (gl.js's present program)

/**
 * What one AR frame shows, read within the frame's callback (the camera image is valid only there):
 * the camera image where the session has it, and the model drawn alone on a transparent background.
 * @param {import('./viewer.js').MoleculeViewer} viewer
 * @param {XRSession} session
 * @param {XRView} xrView the frame's view (its `camera` is there when camera-access was granted)
 * @param {{viewport: {width: number, height: number}, view: Float32Array, projection: Float32Array}} view as drawXR takes it
 * @param {Float32Array|null} placement model → world, as drawXR takes it
 * @returns {{width: number, height: number, camera: Uint8ClampedArray|null, model: Uint8ClampedArray}} RGBA rows, top first
 */
export function readARFrame(viewer, session, xrView, view, placement) {
  const gl = viewer.gl;
  const { width, height } = view.viewport;
  const target = createFrameTarget(gl, width, height);
  try {
    const camera = cameraPixels(gl, session, xrView, target);
    viewer.drawXR(target.framebuffer, [{ ...view, viewport: { x: 0, y: 0, width, height } }], placement);
    return { width, height, camera, model: readRows(gl, width, height) };
  } finally {
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    deleteFrameTarget(gl, target);
  }
}

/** The photo as a file's contents: a JPEG over the camera image, else a PNG (it keeps the transparency). */
export function encodePhoto({ width, height, camera, model }) {
  const photo = document.createElement('canvas');
  photo.width = width;
  photo.height = height;
  const context = photo.getContext('2d');
  // putImageData replaces pixels; the model goes on its own canvas so that drawImage blends it over the camera.
  const layer = document.createElement('canvas');
  layer.width = width;
  layer.height = height;
  layer.getContext('2d').putImageData(new ImageData(model, width, height), 0, 0);
  if (camera) context.putImageData(new ImageData(camera, width, height), 0, 0);
  context.drawImage(layer, 0, 0);
  return new Promise((resolve, reject) => {
    photo.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('Could not make the photo.'))),
      camera ? 'image/jpeg' : 'image/png', 0.92);
  });
}

// The camera image copied into `target` and read back, or null when the session has none.
function cameraPixels(gl, session, xrView, target) {
  if (!xrView?.camera || typeof XRWebGLBinding !== 'function') return null;
  try {
    let binding = bindings.get(session);
    if (!binding) bindings.set(session, (binding = new XRWebGLBinding(session, gl)));
    const texture = binding.getCameraImage(xrView.camera);
    if (!texture) return null;
    let program = copiers.get(gl);
    if (!program) copiers.set(gl, (program = createPresentProgram(gl)));
    gl.bindFramebuffer(gl.FRAMEBUFFER, target.framebuffer);
    gl.viewport(0, 0, target.width, target.height);
    gl.disable(gl.DEPTH_TEST);
    gl.useProgram(program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.bindVertexArray(null);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.enable(gl.DEPTH_TEST);
    return readRows(gl, target.width, target.height);
  } catch {
    return null;  // a browser that grants the feature but fails to hand the image: the transparent photo
  }
}

// The bound framebuffer's pixels, rows turned top first (GL reads bottom first; images start at the top).
function readRows(gl, width, height) {
  const raw = new Uint8Array(width * height * 4);
  gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, raw);
  const rows = new Uint8ClampedArray(raw.length);
  const stride = width * 4;
  for (let y = 0; y < height; y++) rows.set(raw.subarray((height - 1 - y) * stride, (height - y) * stride), y * stride);
  return rows;
}
