// Adding a note on the room screen: the Note dialog takes its words and, if asked, a residue of the
// room's molecule to pin it to ("A:45", "Lys 13", in its own field or named in the text); else the
// note is pinned where the view looks, or, with "Pick a spot", where the next tap on the view lands
// (room-drawing.js hands that tap here). The note goes to the server as an add-note operation.
import { newID } from './room-sync.js';
import { findResidue, moleculeAtoms, parseResidue } from './residue-pins.js';

/**
 * @param {{$: Function, say: Function}} app
 * @param {{canvas: HTMLCanvasElement, stage: HTMLElement, sync: object|null, viewer: object|null}} room
 *   `sync` and `viewer` are read when needed (getters)
 */
export function setupRoomNoteAdd(app, room) {
  const { $, say } = app;
  const { canvas, stage } = room;
  let pendingNoteText = null;  // a note waiting for its spot ("Pick a spot")

  $('room-note').addEventListener('click', () => {
    $('room-note-text').value = '';
    $('room-note-residue').value = '';
    $('room-note-error').textContent = '';
    $('room-dialog-note').showModal();
    $('room-note-text').focus();
  });
  $('room-note-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = $('room-note-text').value.trim();
    if (text.length < 1 || text.length > 500) {
      $('room-note-error').textContent = 'A note has 1 to 500 characters.';
      $('room-note-text').focus();
      return;
    }
    // A residue in its own field, else one named in the text ("A:45"): the note is pinned to it.
    const typed = $('room-note-residue').value.trim();
    const asked = parseResidue(typed) ?? (typed ? null : parseResidue(text));
    if (typed && !asked) {
      $('room-note-error').textContent = 'Name the residue by chain and number, as A:45, or by name and number, as Lys 13.';
      $('room-note-residue').focus();
      return;
    }
    if (asked) {
      const anchor = await residueAnchor(asked);
      if (typeof anchor === 'string') {
        // Only an error when the person typed the residue themselves; one read from the text is a guess.
        if (typed) { $('room-note-error').textContent = anchor; $('room-note-residue').focus(); return; }
      } else {
        $('room-dialog-note').close();
        addNote(text, anchor);
        return;
      }
    }
    $('room-dialog-note').close();
    if (e.submitter?.value === 'pick') {
      pendingNoteText = text;
      stage.classList.add('picking');
      say('Tap the view where the note should be pinned.');
      canvas.focus();
    } else {
      addNote(text, { point: room.viewer ? room.viewer.camera.target.map((v) => Math.round(v * 1e4) / 1e4) : [0, 0, 0] });
    }
  });
  $('room-note-cancel').addEventListener('click', () => $('room-dialog-note').close());

  // {chain, residue} for the server, once the residue is found in the room's molecule; else why not.
  async function residueAnchor(asked) {
    const molecule = room.sync?.state.molecule?.moleculeID;
    if (!molecule) return 'This room has no molecule to pin a residue of.';
    try {
      const found = findResidue(await moleculeAtoms(molecule), asked);
      if (found) return { chain: found.chain, residue: found.number };
      return `${molecule} has no residue ${asked.chain ? `${asked.chain}:` : ''}${asked.name ?? ''}${asked.number}.`;
    } catch (error) {
      return `The residue could not be looked up: ${error.message}.`;
    }
  }

  function addNote(text, anchor) {
    if (!room.sync) return;
    room.sync.send({ type: 'add-note', id: newID('n'), text, anchor });
    say('Note added.');
  }

  return {
    /** Whether a note waits for its spot (the next tap on the view). */
    get picking() { return pendingNoteText !== null; },
    /** Pins the note waiting for its spot at `point` (room metres). */
    pinAt(point) {
      const text = pendingNoteText;
      pendingNoteText = null;
      stage.classList.remove('picking');
      addNote(text, { point });
    },
    /** Forgets a note waiting for its spot. */
    cancelPick() {
      pendingNoteText = null;
    },
  };
}
