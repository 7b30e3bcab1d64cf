// Input on the room screen (room-view.js), in three parts that share the screen's state: the tool
// bar (room-tools.js: colours, brushes, Draw and Move, Undo, Clear), drawing strokes with a finger,
// the mouse or in AR (room-drawing.js; RoomAR in room-ar.js), and adding a note (room-note-add.js).
import { setupRoomTools } from './room-tools.js';
import { setupRoomDrawing } from './room-drawing.js';
import { setupRoomNoteAdd } from './room-note-add.js';

/**
 * @param {{$: Function, el: Function, say: Function}} app
 * @param {{canvas: HTMLCanvasElement, stage: HTMLElement, sync: object|null, viewer: object|null, local: Map,
 *          role: () => string|null, mayDraw: () => boolean, mayEverDraw: () => boolean, isMine: (author: string) => boolean,
 *          queueRender: () => void, showStatus: () => void}} roomScreen
 *   what the room screen shows: `sync` and `viewer` are read when needed (getters); `local` holds
 *   our strokes until the server's copies are all back
 */
export function setupRoomInput(app, roomScreen) {
  const { canvas, stage, local, role, mayDraw, mayEverDraw, isMine, queueRender, showStatus } = roomScreen;
  const tools = setupRoomTools(app, {
    canvas, stage, local, role, mayDraw, mayEverDraw, isMine, drawing: () => pen.active,
    get sync() { return roomScreen.sync; },
  });
  const noteAdd = setupRoomNoteAdd(app, {
    canvas, stage,
    get sync() { return roomScreen.sync; },
    get viewer() { return roomScreen.viewer; },
  });
  const pen = setupRoomDrawing({
    canvas, stage, local, tools, notePick: noteAdd, mayDraw, queueRender, showStatus,
    get sync() { return roomScreen.sync; },
    get viewer() { return roomScreen.viewer; },
  });

  return {
    /** Shows, hides, enables and disables the tools for what this person may do now. */
    updateTools: tools.updateTools,
    /** Ends the stroke being drawn: `keep` sends what is left; otherwise it is withdrawn. */
    endStroke: pen.endStroke,
    /** The server refused the stroke `id`: if it is the one being drawn, drawing it stops. */
    forgetStroke: pen.forgetStroke,
    /** Forgets a note waiting for its spot. */
    cancelNotePick: noteAdd.cancelPick,
    /** What a touch in AR draws with (RoomAR). */
    arDraw: pen.arDraw,
  };
}
