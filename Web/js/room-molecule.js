// The room's molecule in the room screen's view: fetched as a GLB (meshopt-compressed) in the style
// the room gives, placed by the room's transform, and shown once it has come (a newer placement, or
// another room, wins over one still loading). Its frame (id, style, box, placement) is what pins
// notes to its residues (room-notes.js).
import * as api from './api.js';
import { combineModels, parseGLB } from './glb.js';
import { mat4 } from './math.js';

/**
 * @param {{say: Function, onSubjectChange: () => void}} app
 * @param {{viewer: () => object|null, roomID: () => string|null, placement: () => object|null,
 *          status: {setText: Function, show: Function}, cleared: () => void, shown: () => void}} room
 *   `placement()`: the molecule the shown state places, or null; `cleared()`: the shown molecule
 *   went (residue marks with it); `shown()`: the view's molecule changed (notes and strokes again)
 */
export function setupRoomMolecule(app, room) {
  const { say } = app;
  let key = null;      // the placement shown or loading, as JSON
  let frame = null;    // the shown molecule's id, style, GLB box and placement: for residue pins

  /** Shows the molecule the shown state places, if it is not the one shown already. */
  async function show() {
    const placement = room.placement();
    const wanted = placement ? JSON.stringify(placement) : null;
    const viewer = room.viewer();
    if (wanted === key || !viewer) return;
    key = wanted;
    frame = null;
    room.cleared();
    if (!placement) {
      viewer.setModel(null);
      room.shown();
      return;
    }
    const id = room.roomID();
    try {
      room.status.setText(`Loading ${placement.moleculeID}…`);
      const url = await api.prepareModel(placement.moleculeID, 'glb', { style: placement.style || 'cartoon', compression: 'meshopt' });
      const response = await api.fetchWhenFree(url);
      if (!response.ok) throw new Error(`Could not load ${placement.moleculeID} (HTTP ${response.status}).`);
      const model = parseGLB(await response.arrayBuffer());
      if (id !== room.roomID() || wanted !== key) return;
      // The placement moves the model into the room (column-major, metres).
      const matrix = new Float32Array(placement.transform?.length === 16 ? placement.transform : mat4.create());
      viewer.setModel(combineModels([{ model, matrix }]));
      frame = { id: placement.moleculeID, style: placement.style || 'cartoon', bounds: model.bounds, matrix };
      room.shown();
      app.onSubjectChange();
    } catch (error) {
      if (id === room.roomID()) say(`The room's molecule could not be shown: ${error.message}`, { error: true });
    } finally {
      if (id === room.roomID()) room.status.show();
    }
  }

  return {
    show,
    /** The shown molecule's id, style, box ({min, max}) and placement matrix, or null. */
    get frame() { return frame; },
    /** Leaving the room: the view shows no molecule. */
    clear() {
      key = null;
      room.viewer()?.setModel(null);
      frame = null;
    },
  };
}
