// Models in motion, in Explore: an NMR ensemble's models (or a multi-model file's frames, such as
// a trajectory) one after another. A slider picks a model ("Model 3 of 20") and Play steps through
// them in a loop. Each model is the server's GLB of that model (the model option `model=N`, in the
// style and colours shown), placed as the first model is, so what moves is the molecule; a model
// is fetched once and kept while the molecule and its options stay. The camera stays where the
// person put it, and taps, labels and measurements keep naming the same atoms (the models share
// the first model's identify table). A caller may supply frames of its own instead (`frames`: a
// count, the word for one, and whether Play goes there and back): compare.js's Morph plays its
// interpolated frames (the model option `morph=` with `model=N`) this way.
import * as api from './api.js';
import { downloadModel } from './download.js';
import { parseGLB } from './glb.js';

const FRAME_MS = 250;        // Play's pace: four models a second
const MOST_MODELS = 100;     // the slider's reach (an ensemble rarely has more; a trajectory's first 100)

/**
 * @param {{$: Function, say: Function, viewer: () => object|null,
 *   molecule: () => ({id: string, details?: {models?: number}}|null), options: () => object,
 *   onFrame: () => void, frames?: () => ({count: number, noun: string, pingPong: boolean}|null)}} app
 *   options: the model options shown (explore's); onFrame: another model is in the view (labels and
 *   highlights follow); frames: frames of the caller's own, or null for the molecule's models
 */
export function setupModelsPlayer({ $, say, viewer, molecule, options, onFrame, frames: own = () => null }) {
  const box = $('models-player');
  const slider = $('models-slider');
  const play = $('models-play');
  let frames = new Map();   // model number → Promise of its parsed GLB, for the molecule and options shown
  let key = '';             // which molecule and options `frames` belong to
  let timer = null;
  let shown = 1;
  let serial = 0;           // the latest step asked for; older ones are dropped when they arrive
  let direction = 1;        // Play's way through the frames, there and back (pingPong)

  const count = () => Math.min(own()?.count ?? molecule()?.details?.models ?? 1, MOST_MODELS);
  const noun = () => own()?.noun ?? 'Model';

  function frame(n) {
    if (!frames.has(n)) {
      const m = molecule();
      const loading = api.prepareModel(m.id, 'glb', { ...options(), model: String(n), compression: 'meshopt' })
        .then((url) => downloadModel(url)).then(parseGLB);
      loading.catch(() => frames.delete(n));
      frames.set(n, loading);
    }
    return frames.get(n);
  }

  function describe(n) {
    const text = `${noun()} ${n} of ${count()}`;
    $('models-shown').textContent = text;
    slider.setAttribute('aria-valuetext', text);
  }

  // Shows model `n`; the first model is the one explore loaded, kept as it is.
  async function show(n) {
    const v = viewer();
    if (!v || !molecule()) return;
    const mine = ++serial;
    describe(n);
    let parsed;
    try {
      parsed = await frame(n);
    } catch (error) {
      if (mine === serial) { stop(); say(`${noun()} ${n} cannot be shown: ${error.message}`, { error: true }); }
      return;
    }
    if (mine !== serial) return;
    v.setModel(parsed, { keepView: true });
    shown = n;
    box.dataset.shown = String(n);
    onFrame();
  }

  function stop() {
    clearTimeout(timer);
    timer = null;
    play.textContent = 'Play';
    play.setAttribute('aria-pressed', 'false');
  }

  // The one after `n` in Play's order: a loop, or there and back for frames that ask for it.
  function after(n) {
    if (!own()?.pingPong || count() < 2) return n % count() + 1;
    if (n + direction > count() || n + direction < 1) direction = -direction;
    return n + direction;
  }

  // The next model once this one is in the view (and the next fetched), never faster than FRAME_MS.
  async function step() {
    const next = after(shown);
    const started = performance.now();
    slider.value = String(next);
    await show(next);
    if (!timer) return;
    const keep = direction;
    frame(after(next)).catch(() => {});  // the one after, while this one is watched
    direction = keep;
    timer = setTimeout(step, Math.max(0, FRAME_MS - (performance.now() - started)));
  }

  play.addEventListener('click', () => {
    if (timer) { stop(); say(`Stopped at ${noun().toLowerCase()} ${shown} of ${count()}.`); return; }
    play.textContent = 'Pause';
    play.setAttribute('aria-pressed', 'true');
    say(`Playing the ${count()} ${noun().toLowerCase()}s${own()?.pingPong ? ', there and back' : ''}; the first time, each is made and fetched as it comes.`);
    timer = setTimeout(step, 0);
  });
  slider.addEventListener('input', () => { stop(); show(Number(slider.value)); });

  return {
    /** A model of the molecule is in the view, as explore loaded it (model 1): the player follows. */
    modelShown() {
      const m = molecule();
      const n = count();
      const now = `${m?.id}|${JSON.stringify(options())}`;
      stop();
      if (now !== key) { frames = new Map(); key = now; }
      frames.set(1, Promise.resolve(viewer()?.model));
      shown = 1;
      direction = 1;
      serial++;
      box.hidden = n < 2;
      box.dataset.shown = '1';
      slider.max = String(n);
      slider.value = '1';
      describe(1);
    },
    /** Another molecule: nothing to play until its model is shown. */
    clear() {
      stop();
      serial++;
      frames = new Map();
      key = '';
      box.hidden = true;
    },
  };
}
