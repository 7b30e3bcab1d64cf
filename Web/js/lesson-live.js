// Following a lesson live (issue 34, point 3): the lesson's owner presents it in a room of their own
// and the class follows on their own screens, each step and each turn of the teacher's view.
//
// Two sides, each a module of its own: the teacher presenting (lesson-present.js: "Present live",
// a room, the class link and its QR code, "N following", the answers as they come) and the class
// following (lesson-follow.js: each step and each turn of the teacher's view, "Back to the
// teacher"); what both use is lesson-live-shared.js's. This module picks the side and hands it the
// player's step and camera callbacks.
//
// Called by app.js on the lesson screen (see lesson-player.js's interface):
//   const live = startLessonLive({ player, roomID, $, el, say, account });   // roomID null: no room
//   live.stop();   // the person left the lesson
// Without a room, it offers Present live to the lesson's owner (once the lesson is known).
import { offerPresenting } from './lesson-present.js';
import { follow } from './lesson-follow.js';

// The player's callbacks are registered once per player (it keeps them for its life) and handed to
// whichever live session is open now.
const hooked = new WeakMap();
function listen(player) {
  let hooks = hooked.get(player);
  if (!hooks) {
    hooks = { session: null };
    player.onStepShown?.((index) => hooks.session?.stepShown(index));
    player.onCameraMoved?.((text) => hooks.session?.cameraMoved(text));
    hooked.set(player, hooks);
  }
  return hooks;
}

/**
 * @param {{player: object, roomID?: string|null, $: (id: string) => HTMLElement, el: Function, say: Function,
 *          account?: {ready?: () => Promise}}} app
 * @returns {{stop: () => void}}
 */
export function startLessonLive({ player, roomID = null, $, el, say, account }) {
  const hooks = listen(player);
  hooks.session?.stop();
  const session = roomID ? follow({ player, roomID, $, el, say, account }) : offerPresenting({ player, $, el, say, account });
  hooks.session = session;
  return {
    stop() {
      session.stop();
      if (hooks.session === session) hooks.session = null;
    },
    /** For the checks and anyone inspecting the page: what this session holds. */
    get state() { return session.state?.(); },
  };
}
