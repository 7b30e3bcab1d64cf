// The top bar's Camera and Record, and the photo button in AR: pictures and videos of the 3D view
// alone (its canvas, never the page's buttons), as the original app made them, kept the way a phone
// keeps things: the system share sheet where the browser can share files (its Save Image or Save
// Video puts them in Photos), a download where it cannot. What a browser cannot do is said in the
// status line, never skipped in silence.
import { allows } from './policy.js';

// Recording formats, best first, as MediaRecorder.isTypeSupported answers. MP4 comes first: Safari
// recorded nothing else before 18.4, and an iPhone's Photos keeps no WebM, so asking for WebM first
// would hand iPhones a video they cannot save; Chrome records MP4 too since 126. WebM is for the
// rest (Firefox, older Chrome).
const RECORDING_TYPES = ['video/mp4;codecs=avc1', 'video/mp4', 'video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];
const NOTE_MS = 8000;        // how long a note about an AR photo stays on the screen

/** The first recording format this browser's MediaRecorder takes, or null. */
export function recordingType() {
  const Recorder = window.MediaRecorder;
  if (typeof Recorder?.isTypeSupported !== 'function') return null;
  return RECORDING_TYPES.find((type) => {
    try { return Recorder.isTypeSupported(type); } catch { return false; }
  }) ?? null;
}

// Why this browser cannot film `canvas`, in words; null when it can.
function whyNoRecording(canvas) {
  if (typeof window.MediaRecorder !== 'function') return 'This browser cannot record video.';
  if (!recordingType()) return 'This browser cannot record video in a format it can save (MP4 or WebM).';
  if (typeof canvas?.captureStream !== 'function') return 'This browser cannot film the 3D view.';
  return null;
}

// "ProteinAR 1AKE 2026-11-24 19.58.03.png": the subject and the time, so that pictures do not replace
// each other in a downloads folder; no characters a file system refuses.
function fileName(name, extension) {
  const d = new Date();
  const two = (n) => String(n).padStart(2, '0');
  const when = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}.${two(d.getMinutes())}.${two(d.getSeconds())}`;
  return `ProteinAR ${String(name).replace(/[^\w.-]+/g, '-')} ${when}.${extension}`;
}

/**
 * Hands `file` to the share sheet where the browser can share files, else downloads it.
 * Resolves 'shared', 'downloaded', 'cancelled' (the person closed the share sheet) or 'needs-tap'
 * (the browser wants a fresh tap to share: the time since the person's tap ran out).
 */
export async function saveFile(file, { title = file.name, downloadWithoutTap = false } = {}) {
  let canShare = false;
  try { canShare = typeof navigator.share === 'function' && Boolean(navigator.canShare?.({ files: [file] })); } catch { /* no */ }
  if (canShare) {
    try {
      await navigator.share({ files: [file], title });
      return 'shared';
    } catch (error) {
      if (error?.name === 'AbortError') return 'cancelled';
      if (error?.name === 'NotAllowedError' && !downloadWithoutTap) return 'needs-tap';
      // Any other refusal (a type the sheet will not take, say): a download still keeps the file.
    }
  }
  const link = document.createElement('a');
  link.href = URL.createObjectURL(file);
  link.download = file.name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy by then; a minute is ample for a slow phone.
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  return 'downloaded';
}

/**
 * Wires Camera, Record, the AR photo button and the dialog that shows a video (or a picture that
 * needs a second tap to share). `subject()` is what they act on ({name, viewer}), `arSession()` the
 * AR session running, if any. Returns update(), to call when the subject may have changed.
 */
export function setupCapture({ $, say, subject, arSession }) {
  const recordButton = $('record-button');
  let recorder = null;
  let offered = null;         // the file the dialog offers, with its words
  let noteTimer = 0;

  function flash() {
    const f = $('flash');
    f.classList.add('on');
    requestAnimationFrame(() => requestAnimationFrame(() => f.classList.remove('on')));
  }

  // Saves `file` and says what became of it; `what` names it ("the picture of 1AKE").
  async function keep(file, what) {
    const outcome = await saveFile(file, { title: `ProteinAR: ${what}` });
    if (outcome === 'needs-tap') offer(file, what);
    else if (outcome === 'cancelled') say(`Not saved: ${what} was not shared.`);
    else if (outcome === 'shared') say(`Shared ${what}.`);
    else say(`Saved ${what}.`);
  }

  // The dialog with the video (or picture) and Save, whose tap lets the browser open the share sheet.
  async function offer(file, what) {
    const video = file.type.startsWith('video/');
    if (offered) URL.revokeObjectURL(offered.url);
    const url = URL.createObjectURL(file);
    offered = { file, what, url };
    $('capture-title').textContent = video ? 'Your video' : 'Your picture';
    // A video plays from its blob: address only if the page's policy allows that (media-src).
    const playable = video && await allows('media-src', 'blob:');
    $('capture-video').hidden = !playable;
    $('capture-image').hidden = video;
    $('capture-no-preview').hidden = !video || playable;
    if (playable) $('capture-video').src = url;
    if (!video) $('capture-image').src = url;
    $('capture').showModal();
  }
  // The close event comes a moment after close(), possibly after the next offer opened the dialog
  // again: it only pauses; the offer's address is let go when the next one replaces it.
  $('capture').addEventListener('close', () => $('capture-video').pause());
  $('capture-save').addEventListener('click', () => {
    const { file, what } = offered ?? {};
    $('capture').close();
    if (file) keep(file, what);
  });
  $('capture-discard').addEventListener('click', () => $('capture').close());

  // ---- Camera ----
  $('camera-button').addEventListener('click', async () => {
    const s = subject();
    if (!s) return;
    let blob;
    try {
      blob = await s.viewer.snapshot();
    } catch (error) {
      say(error.message, { error: true });
      return;
    }
    flash();
    await keep(new File([blob], fileName(s.name, 'png'), { type: 'image/png' }), `the picture of ${s.name}`);
  });

  // ---- Record: tap to start, tap Stop to finish (a button: Enter and Space work the same) ----
  // The view draws only when something changes, and a canvas that is not drawn gives the recorder
  // no frames: while recording the view is drawn every frame, so a still model records too.
  let keepDrawing = 0;
  function drawWhileRecording(viewer) {
    if (!recorder) return;
    viewer.requestRender();
    keepDrawing = requestAnimationFrame(() => drawWhileRecording(viewer));
  }

  function startRecording() {
    const s = subject();
    if (!s || recorder) return;
    const canvas = s.viewer.canvas;
    const why = whyNoRecording(canvas);
    if (why) {
      say(`${why} The camera button still saves pictures.`, { error: true });
      return;
    }
    const type = recordingType();
    let stream;
    let started;
    try {
      stream = canvas.captureStream(30);
      started = new MediaRecorder(stream, { mimeType: type });
      started.start(1000);  // a chunk a second, so a long video is not one growing buffer
    } catch (error) {
      stream?.getTracks().forEach((t) => t.stop());
      say(`This browser could not start recording (${error?.message ?? error}). The camera button still saves pictures.`, { error: true });
      return;
    }
    const chunks = [];
    started.addEventListener('dataavailable', (e) => { if (e.data?.size) chunks.push(e.data); });
    started.addEventListener('stop', () => {
      stream.getTracks().forEach((t) => t.stop());
      // The type the recorder wrote, without its codecs; what was asked for if it names another.
      const written = (started.mimeType || type).split(';')[0];
      const base = ['video/mp4', 'video/webm'].includes(written) ? written : type.split(';')[0];
      const file = new File(chunks, fileName(s.name, base === 'video/mp4' ? 'mp4' : 'webm'), { type: base });
      if (!file.size) say('This browser gave the recording no frames, so there is no video to keep. The camera button still saves pictures.', { error: true });
      else offer(file, `the video of ${s.name}`);
    });
    recorder = started;
    drawWhileRecording(s.viewer);
    recordButton.setAttribute('aria-pressed', 'true');
    recordButton.textContent = 'Stop';
    say('Recording the 3D view… tap Stop to finish.');
  }

  function stopRecording() {
    const stopping = recorder;
    recorder = null;
    cancelAnimationFrame(keepDrawing);
    recordButton.setAttribute('aria-pressed', 'false');
    recordButton.textContent = 'Record';
    try { if (stopping?.state !== 'inactive') stopping?.stop(); } catch { /* already stopped */ }
  }

  recordButton.addEventListener('click', () => {
    if (recorder) stopRecording();
    else startRecording();
  });

  // ---- Photo in AR ----
  $('ar-photo').addEventListener('click', async () => {
    const session = arSession();
    const note = $('ar-photo-note');
    if (!session?.takePhoto) return;
    const name = subject()?.name ?? 'AR';
    let photo;
    try {
      photo = await session.takePhoto();
    } catch (error) {
      showNote(error.message);
      return;
    }
    const file = new File([photo.blob], fileName(name, photo.withCamera ? 'jpg' : 'png'), { type: photo.blob.type });
    // No dialog can show in AR (only the overlay does): a download stands in for a second tap.
    const outcome = await saveFile(file, { title: `ProteinAR: ${name} in AR`, downloadWithoutTap: true });
    const kept = outcome === 'cancelled' ? 'The photo was not shared.' : outcome === 'shared' ? 'Photo shared.' : 'Photo saved.';
    showNote(photo.withCamera ? kept
      : `${kept} This browser does not let the page see the camera image, so the photo shows the molecule over a transparent background.`);
    note.dataset.camera = String(photo.withCamera);
  });
  function showNote(text) {
    const note = $('ar-photo-note');
    note.textContent = text;
    note.hidden = false;
    clearTimeout(noteTimer);
    noteTimer = setTimeout(() => { note.hidden = true; }, NOTE_MS);
  }

  return {
    /** Shows Camera and Record when there is something to capture; a recording ends with its subject. */
    update() {
      const s = subject();
      $('camera-button').hidden = !s;
      // Record shows even where the browser cannot record: pressed, it says why.
      recordButton.hidden = !s;
      if (!s && recorder) stopRecording();
    },
  };
}
