// The Rooms screen: the list of rooms with the form that creates one (#/rooms). Accounts are optional
// (signing in, registering and the profile are account.js's): without one, people join public
// rooms by link as guests.
import * as api from './api.js';
import { fieldError } from './account.js';
import { showInvitations } from './invitations.js';
import { whereAmI } from './where-am-i.js';
import { fillMenu, styles } from './model-options.js';


/** @param {{$: Function, el: Function, say: Function, account: object}} app  account: account.js's */
export function setupRooms(app) {
  const { $, el, say, account } = app;
  let location_ = null;   // the create form's position, once the person shared it
  let moleculesListed = false;

  // ---- #/rooms: the rooms ----
  async function showList() {
    await account.ready();
    account.accountBar($('rooms-account'));
    const signedIn = Boolean(api.currentAccount());
    $('room-form').hidden = !signedIn;
    $('room-form-guest').hidden = signedIn;
    if (signedIn) fillMolecules();
    $('rooms-invitations').hidden = true;
    if (signedIn) {
      showInvitations(app, $('rooms-invitation-list'), { changed: showList }).then((count) => { $('rooms-invitations').hidden = count === 0; });
    }
    const list = $('room-list');
    list.setAttribute('aria-busy', 'true');
    try {
      const { rooms } = await api.listRooms();
      list.replaceChildren(...rooms.map(roomItem));
      if (rooms.length === 0) {
        list.append(el('li', { class: 'empty-note' }, signedIn
          ? 'No rooms yet. Create the first one above, then send its link to whoever should draw with you.'
          : 'No public rooms yet. Sign in to create one, or open a link someone sent you.'));
      }
    } catch (error) {
      list.replaceChildren(el('li', { class: 'empty-note' }, `The rooms could not be listed: ${error.message}`));
      say(error.message, { error: true });
    } finally {
      list.removeAttribute('aria-busy');
    }
  }

  function roomItem(room) {
    const facts = [
      room.ownerName ? `by ${room.ownerName}` : null,
      room.isPublic ? 'public' : 'private',
      room.guestsMayDraw ? 'guests may draw' : null,
      room.molecule ? room.molecule.moleculeID : null,
      room.role === 'owner' ? 'yours' : room.role === 'member' ? 'member' : null,
    ].filter(Boolean).join(' · ');
    return el('li', { 'data-room': room.id },
      el('a', { class: 'room-name', href: `#/rooms/${encodeURIComponent(room.id)}` }, room.name),
      el('span', { class: 'meta' }, facts),
      el('div', { class: 'row' },
        el('a', { class: 'button primary', href: `#/rooms/${encodeURIComponent(room.id)}`, 'aria-label': `Open the room ${room.name}` }, 'Open'),
        copyLinkButton(room, `Copy the link of ${room.name}`)));
  }

  /** A button that copies the room's address, saying so (the clipboard needs a secure page: else it shows the address). */
  function copyLinkButton(room, label = 'Copy the link to this room') {
    return el('button', { type: 'button', class: 'copy-link', 'aria-label': label, onclick: () => copyLink(room) }, 'Copy link');
  }

  async function copyLink(room) {
    const url = new URL(`#/rooms/${encodeURIComponent(room.id)}`, location.href).href;
    try {
      await navigator.clipboard.writeText(url);
      say(`Copied the link to ${room.name}: send it to whoever should join.`);
    } catch {
      say(`The link to ${room.name}: ${url}`);
    }
  }

  async function fillMolecules() {
    if (moleculesListed) return;
    moleculesListed = true;
    try {
      const page = await api.listMolecules({ limit: 200, sort: 'id' });
      $('room-molecule').append(...page.molecules.map((m) => el('option', { value: m.id }, `${m.id}: ${m.title}`.slice(0, 80))));
    } catch {
      moleculesListed = false;  // the list stays "None"; a later visit tries again
    }
  }

  // The engine's styles (a room's molecule is drawn in one chosen, not Automatic).
  fillMenu($('room-style'), styles().filter((s) => s.id !== 'auto'));

  $('room-use-location').addEventListener('change', (e) => {
    const note = $('room-location-note');
    location_ = null;
    if (!e.target.checked) { note.textContent = ''; return; }
    if (!navigator.geolocation) {
      e.target.checked = false;
      note.textContent = 'This browser cannot tell where you are.';
      return;
    }
    note.textContent = 'Finding where you are…';
    let reason = null;
    whereAmI((r) => { reason = r; }).then((here) => {
      if (!here) {
        e.target.checked = false;
        note.textContent = reason === 'refused' ? 'Location refused: the room will not be on the map.' : 'Your location could not be found; the room will not be on the map.';
        return;
      }
      location_ = here;
      note.textContent = `The room will be on the map at ${here.latitude.toFixed(3)}, ${here.longitude.toFixed(3)}.`;
    });
  });

  $('room-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = $('room-name').value.trim();
    const error = $('room-form-error');
    error.textContent = '';
    if (!name) return fieldError($('room-name'), error, 'Give the room a name (up to 80 characters).');
    if ($('room-use-location').checked && !location_) return fieldError($('room-use-location'), error, 'Still finding your location: try again in a moment, or untick “Use my location”.');
    const settings = { name, isPublic: $('room-public').checked, guestsMayDraw: $('room-guests-draw').checked };
    if (location_) settings.location = location_;
    if ($('room-molecule').value) {
      settings.moleculeID = $('room-molecule').value;
      settings.style = $('room-style').value;
    }
    const button = e.submitter ?? $('room-form').querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const room = await api.createRoom(settings);
      say(`Created the room ${room.name}.`);
      $('room-form').reset();
      location_ = null;
      $('room-location-note').textContent = '';
      location.hash = `#/rooms/${encodeURIComponent(room.id)}`;
    } catch (failure) {
      fieldError($('room-name'), error, failure.message);
    } finally {
      button.disabled = false;
    }
  });

  return {
    show: showList,
    roomItem,
    copyLinkButton,
  };
}

