// The "Draw together" screens around the rooms themselves: sign in and register (#/signin), the
// profile (#/profile: name, own rooms, sign out) and the list of rooms with the form that creates
// one (#/draw). Accounts are optional: without one, people join public rooms by link as guests.
import * as api from './api.js';

// What the server accepts (docs/rooms-protocol.md), checked here first so mistakes are named at once.
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const STYLES = [['cartoon', 'Cartoon'], ['ball-and-stick', 'Ball and stick'], ['spacefill', 'Spacefill'], ['sticks', 'Sticks'], ['backbone', 'Backbone'], ['surface', 'Surface']];

/** @param {{$: Function, el: Function, say: Function}} app */
export function setupRooms(app) {
  const { $, el, say } = app;
  // The session is read once at start and after each sign-in or out; screens wait for it.
  let ready = api.session().catch(() => null);
  let location_ = null;   // the create form's position, once the person shared it
  let moleculesListed = false;

  // ---- The account line above the room list ----
  function accountBar(container) {
    const account = api.currentAccount();
    if (account) {
      container.replaceChildren(
        el('span', {}, 'Signed in as ', el('strong', {}, account.name), '.'),
        el('a', { href: '#/profile' }, 'Your profile'),
        el('button', { type: 'button', onclick: signOut }, 'Sign out'));
    } else {
      container.replaceChildren(
        el('span', {}, 'You are a guest: you can join public rooms by their link.'),
        el('a', { class: 'button primary', href: `#/signin/${encodeURIComponent(location.hash)}` }, 'Sign in or register'));
    }
  }

  async function signOut() {
    try {
      await api.signOut();
      say('Signed out.');
    } catch (error) {
      say(`Could not sign out: ${error.message}`, { error: true });
    }
    ready = Promise.resolve(null);
    if (location.hash === '#/draw') showList();
    else location.hash = '#/draw';
  }

  // ---- #/draw: the rooms ----
  async function showList() {
    await ready;
    accountBar($('draw-account'));
    const signedIn = Boolean(api.currentAccount());
    $('room-form').hidden = !signedIn;
    $('room-form-guest').hidden = signedIn;
    if (signedIn) fillMolecules();
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
      el('a', { class: 'room-name', href: `#/draw/${encodeURIComponent(room.id)}` }, room.name),
      el('span', { class: 'meta' }, facts),
      el('div', { class: 'row' },
        el('a', { class: 'button primary', href: `#/draw/${encodeURIComponent(room.id)}`, 'aria-label': `Open the room ${room.name}` }, 'Open'),
        copyLinkButton(room, `Copy the link of ${room.name}`)));
  }

  /** A button that copies the room's address, saying so (the clipboard needs a secure page: else it shows the address). */
  function copyLinkButton(room, label = 'Copy the link to this room') {
    return el('button', { type: 'button', class: 'copy-link', 'aria-label': label, onclick: () => copyLink(room) }, 'Copy link');
  }

  async function copyLink(room) {
    const url = new URL(`#/draw/${encodeURIComponent(room.id)}`, location.href).href;
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

  $('room-style').replaceChildren(...STYLES.map(([value, text]) => el('option', { value }, text)));

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
    navigator.geolocation.getCurrentPosition((position) => {
      location_ = { latitude: round(position.coords.latitude), longitude: round(position.coords.longitude) };
      note.textContent = `The room will be on the map at ${location_.latitude.toFixed(3)}, ${location_.longitude.toFixed(3)}.`;
    }, (error) => {
      e.target.checked = false;
      note.textContent = error.code === 1 ? 'Location refused: the room will not be on the map.' : 'Your location could not be found; the room will not be on the map.';
    }, { timeout: 15000, maximumAge: 600000 });
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
      location.hash = `#/draw/${encodeURIComponent(room.id)}`;
    } catch (failure) {
      fieldError($('room-name'), error, failure.message);
    } finally {
      button.disabled = false;
    }
  });

  // ---- #/signin: sign in, or register ----
  let next = '#/draw';
  async function showSignIn(arg) {
    next = arg && decodeURIComponent(arg).startsWith('#/') && !decodeURIComponent(arg).startsWith('#/signin') ? decodeURIComponent(arg) : '#/draw';
    await ready;
    const account = api.currentAccount();
    $('signin-already').hidden = !account;
    if (account) $('signin-already-name').textContent = account.name;
  }

  $('signin-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const email = $('signin-email'), password = $('signin-password'), error = $('signin-error');
    error.textContent = '';
    clearInvalid(e.target);
    if (!EMAIL.test(email.value.trim())) return fieldError(email, error, 'Type your e-mail address, such as ada@example.org.');
    if (!password.value) return fieldError(password, error, 'Type your password.');
    submitAccount(e, () => api.signIn({ email: email.value.trim(), password: password.value }), error, password, 'Signing in…');
  });

  $('register-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const name = $('register-name'), email = $('register-email'), password = $('register-password'), error = $('register-error');
    error.textContent = '';
    clearInvalid(e.target);
    const n = name.value.trim();
    if (n.length < 1 || n.length > 80) return fieldError(name, error, 'Your name is shown to the others in a room: 1 to 80 characters.');
    const address = email.value.trim();
    if (!EMAIL.test(address) || address.length > 254) return fieldError(email, error, 'That does not look like an e-mail address (one @ and a dot after it, such as ada@example.org).');
    if (password.value.length < 8) return fieldError(password, error, `The password needs at least 8 characters (it has ${password.value.length}).`);
    if (password.value.length > 128) return fieldError(password, error, 'The password can have at most 128 characters.');
    submitAccount(e, () => api.register({ email: address, password: password.value, name: n }), error, email, 'Registering…');
  });

  async function submitAccount(e, call, error, focusOnError, busyText) {
    const button = e.target.querySelector('button[type=submit]');
    const label = button.textContent;
    button.disabled = true;
    button.textContent = busyText;
    try {
      const account = await call();
      ready = Promise.resolve(account);
      e.target.reset();
      say(`Signed in as ${account.name}.`);
      location.hash = next;
    } catch (failure) {
      // The server's words: "wrong e-mail or password", "an account with this e-mail exists", …
      const message = failure.status === 0 ? failure.message : failure.status === 429 || failure.status >= 500
        ? `${failure.message} Please try again in a moment.` : failure.message;
      fieldError(focusOnError, error, message.charAt(0).toUpperCase() + message.slice(1) + (/[.!?]$/.test(message) ? '' : '.'));
    } finally {
      button.disabled = false;
      button.textContent = label;
    }
  }

  // ---- #/profile ----
  async function showProfile() {
    await ready;
    const signedOut = $('profile-signed-out');
    const body = $('profile-body');
    let answer;
    try {
      answer = await api.profile();
    } catch (error) {
      if (error.status === 401) {
        signedOut.hidden = false;
        body.hidden = true;
        return;
      }
      say(error.message, { error: true });
      return;
    }
    signedOut.hidden = true;
    body.hidden = false;
    $('profile-name').value = answer.account.name;
    $('profile-email').textContent = answer.account.email;
    const list = $('profile-rooms');
    list.replaceChildren(...answer.rooms.map(roomItem));
    if (answer.rooms.length === 0) list.append(el('li', { class: 'empty-note' }, 'You have no rooms yet. ', el('a', { href: '#/draw' }, 'Create one'), '.'));
  }

  $('profile-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = $('profile-name'), error = $('profile-error');
    error.textContent = '';
    clearInvalid(e.target);
    const n = name.value.trim();
    if (n.length < 1 || n.length > 80) return fieldError(name, error, 'Your name needs 1 to 80 characters.');
    try {
      const account = await api.updateProfile({ name: n });
      say(`Your name is now ${account?.name ?? n}.`);
    } catch (failure) {
      fieldError(name, error, failure.message);
    }
  });
  $('profile-sign-out').addEventListener('click', signOut);
  $('signin-sign-out').addEventListener('click', signOut);

  // Marks the field wrong, says why next to it (a live region) and puts the cursor there.
  function fieldError(field, box, message) {
    field.setAttribute('aria-invalid', 'true');
    box.textContent = message;
    field.focus();
  }
  function clearInvalid(form) {
    for (const field of form.querySelectorAll('[aria-invalid]')) field.removeAttribute('aria-invalid');
  }

  return {
    /** Resolves once whether this browser is signed in is known. */
    ready: () => ready,
    show(view, arg) {
      if (view === 'draw') showList();
      else if (view === 'signin') showSignIn(arg);
      else if (view === 'profile') showProfile();
    },
    copyLinkButton,
  };
}

// Four decimals of a degree (about 10 m): enough for a map, and no closer to someone's door.
function round(degrees) {
  return Math.round(degrees * 1e4) / 1e4;
}
