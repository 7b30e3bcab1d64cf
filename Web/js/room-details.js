// What the room screen says about its room, and what its owner can change there: the name (also
// the page's title), its facts (owner, public or private, who may draw, where on the map), its
// link, the hint to sign in for a guest, and the owner's panels (Settings, Invite, Place:
// room-invite.js, room-place.js). A room saved from them is shown again through `saved`.
import * as api from './api.js';
import { setupRoomPlace } from './room-place.js';
import { setupRoomInvite } from './room-invite.js';

/**
 * @param {{$: Function, el: Function, say: Function, copyLinkButton: Function}} app
 * @param {{roomID: () => string|null, saved: (room: object) => void}} roomScreen  the open room, and
 *   what shows a room as the server answered a change of it
 */
export function setupRoomDetails(app, roomScreen) {
  const { $, say } = app;
  const invite = setupRoomInvite(app, { roomID: roomScreen.roomID });
  const place = setupRoomPlace(app, { roomID: roomScreen.roomID, saved: roomScreen.saved });

  /** Shows room `r` (as the server describes it, with this person's role in it). */
  function show(r) {
    $('room-title').textContent = r.name;
    document.title = `${r.name} · ProteinAR`;
    $('room-facts').textContent = [r.ownerName ? `by ${r.ownerName}` : null, r.isPublic ? 'public' : 'private',
      r.guestsMayDraw ? 'guests may draw' : 'guests watch', place.describe(r.location)].filter(Boolean).join(' · ');
    $('room-link-slot').replaceChildren(app.copyLinkButton(r));
    $('room-signin').hidden = Boolean(api.currentAccount());
    $('room-signin-link').href = `#/signin/${encodeURIComponent(`#/rooms/${r.id}`)}`;
    invite.show(r);
    $('room-settings').hidden = r.role !== 'owner';
    $('room-place').hidden = r.role !== 'owner';
    $('room-settings-public').checked = Boolean(r.isPublic);
    $('room-settings-guests-draw').checked = Boolean(r.guestsMayDraw);
    if (r.role === 'owner') place.show(r);
  }

  // ---- Settings (owner) ----
  $('room-settings').addEventListener('submit', async (e) => {
    e.preventDefault();
    const roomID = roomScreen.roomID();
    if (!roomID) return;
    try {
      const updated = await api.updateRoom(roomID, { isPublic: $('room-settings-public').checked, guestsMayDraw: $('room-settings-guests-draw').checked });
      roomScreen.saved(updated);
      // Said beside the Save button, where the eye is, and on the status line for screen readers.
      $('room-settings-said').textContent = 'Saved.';
      say('Saved. People who are here now see the change when they next join.');
    } catch (error) {
      say(error.message, { error: true });
    }
  });

  return { show };
}
