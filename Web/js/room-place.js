// Where a room is on the map (#/map), on the room screen: everyone sees the place in the room's
// facts (room-view.js); its owner can move it, typing the coordinates or taking where the phone is
// now, saved through the room's settings (PATCH /api/rooms/{id}, which takes a location).
import * as api from './api.js';
import { roundDegrees, whereAmI } from './where-am-i.js';

/**
 * @param {{$: Function, say: Function}} app
 * @param {{roomID: () => string|null, saved: (room: object) => void}} roomScreen  the open room, and what shows a saved one
 */
export function setupRoomPlace(app, roomScreen) {
  const { $, say } = app;

  function describe(location) {
    return valid(location) ? `on the map at ${location.latitude.toFixed(3)}, ${location.longitude.toFixed(3)}` : null;
  }

  /** Fills the owner's fields from the room as the server has it. */
  function show(room) {
    const place = describe(room.location);
    $('room-place-now').textContent = place ? `Now ${place}.` : 'Not on the map yet: give a place, or use where you are.';
    $('room-latitude').value = valid(room.location) ? String(room.location.latitude) : '';
    $('room-longitude').value = valid(room.location) ? String(room.location.longitude) : '';
    $('room-place-error').textContent = '';
    $('room-place-remove').hidden = !place;
  }

  /** The location the form asks for: undefined when both fields are empty, null when they are not a place (said beside them). */
  function asked() {
    const error = $('room-place-error');
    error.textContent = '';
    const [lat, lon] = [$('room-latitude').value.trim(), $('room-longitude').value.trim()];
    if (!lat && !lon) return undefined;
    const location = { latitude: roundDegrees(Number(lat)), longitude: roundDegrees(Number(lon)) };
    if (!lat || !lon || !valid(location) || Math.abs(location.latitude) > 90 || Math.abs(location.longitude) > 180) {
      error.textContent = 'A place needs a latitude from −90 to 90 and a longitude from −180 to 180, e.g. 52.205 and 0.122.';
      $('room-latitude').focus();
      return null;
    }
    return location;
  }

  $('room-place-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const id = roomScreen.roomID();
    const location = asked();
    if (!id || !location) {
      if (location === undefined) $('room-place-error').textContent = 'Give a latitude and a longitude, or use where you are now.';
      return;
    }
    try {
      roomScreen.saved(await api.updateRoom(id, { location }));
      say(`Saved: the room is now ${describe(location)}.`);
    } catch (error) {
      $('room-place-error').textContent = error.message;
    }
  });

  $('room-place-remove').addEventListener('click', async () => {
    const id = roomScreen.roomID();
    if (!id) return;
    try {
      roomScreen.saved(await api.updateRoom(id, { location: null }));
      say('Saved: the room is no longer on the map.');
    } catch (error) {
      $('room-place-error').textContent = error.message;
    }
  });

  $('room-place-here').addEventListener('click', () => {
    const error = $('room-place-error');
    if (!navigator.geolocation) { error.textContent = 'This browser cannot tell where you are: type the place instead.'; return; }
    $('room-place-now').textContent = 'Finding where you are…';
    let reason = null;
    whereAmI((r) => { reason = r; }, 60000).then((here) => {
      if (!here) {
        $('room-place-now').textContent = '';
        error.textContent = reason === 'refused' ? 'Location refused: type the place instead, or allow this site to use your location.'
          : 'Your location could not be found: type the place instead.';
        return;
      }
      $('room-latitude').value = String(here.latitude);
      $('room-longitude').value = String(here.longitude);
      $('room-place-now').textContent = 'Found where you are: Save to move the room here.';
    });
  });

  return { show, describe };
}

function valid(l) {
  return Boolean(l) && Number.isFinite(l.latitude) && Number.isFinite(l.longitude);
}

