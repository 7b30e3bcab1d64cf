// The room screen's status line: it always says whether what you see is live (connecting, live
// with who is here, looking back at the history, reconnecting with a countdown, offline, failed),
// and how many of your changes have not yet reached the server. room-view.js says when to update it.

/**
 * @param {{$: Function}} app
 * @param {{sync: () => object|null, lookingBack: () => boolean, mayDraw: () => boolean}} room
 *   the open room's connection (RoomSync), whether someone looks back at its history, whether this
 *   person may draw now
 */
export function setupRoomStatus(app, room) {
  const { $ } = app;
  const line = $('room-status');
  let timer = 0;   // the reconnecting countdown's

  function set(state, text) {
    line.dataset.state = state;
    line.textContent = text;
  }

  // What the connection's state says, read afresh (and, while reconnecting, every half second).
  function show() {
    const sync = room.sync();
    if (!sync) return;
    clearInterval(timer);
    const waiting = sync.unacknowledged;
    const waitingText = waiting ? ` · ${waiting} change${waiting === 1 ? '' : 's'} not yet sent` : '';
    if (room.lookingBack() && sync.status === 'live') {
      return set('history', `History: you are looking back, drawing is paused · the room stays live behind it${waitingText}`);
    }
    const readOnly = sync.status === 'live' && !room.mayDraw() ? ' · read-only: guests may only watch in this room' : '';
    switch (sync.status) {
      case 'connecting':
        return set('connecting', 'Connecting…');
      case 'live': {
        const here = new Set(sync.peers.map((p) => p.connection ?? p.id)).size;
        const watching = sync.watchers ? ` · ${sync.watchers} watching` : '';
        return set('live', `Live${here ? ` · ${here} here` : ''}${watching}${readOnly}${waitingText}`);
      }
      case 'reconnecting': {
        const tick = () => {
          const s = room.sync();
          const seconds = s?.retryAt ? Math.max(0, Math.ceil((s.retryAt - Date.now()) / 1000)) : 0;
          set('reconnecting', `${seconds ? `Connection lost: reconnecting in ${seconds} s` : 'Reconnecting…'}${waitingText}`);
        };
        tick();
        timer = setInterval(tick, 500);
        return undefined;
      }
      case 'offline':
        return set('offline', `Offline: waiting for the network${waitingText}`);
      case 'failed':
        return set('failed', sync.failure ?? 'The room cannot be reached.');
      default:
        return set(sync.status, '');
    }
  }

  return {
    /** Puts `text` on the line in the state `state` (for CSS and tests: connecting, live, failed…). */
    set,
    /** Says what the connection's state is now. */
    show,
    /** Says `text` on the line, its state as it was (connecting when it has none yet). */
    setText(text) {
      set(line.dataset.state ?? 'connecting', text);
    },
    /** Leaving the room: the reconnecting countdown stops. */
    stop() {
      clearInterval(timer);
    },
  };
}
