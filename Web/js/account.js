// Accounts in the page, for every screen that needs one: sign in and register (#/signin), the
// profile (#/profile: name, invitations to rooms, own rooms, a link to My molecules, sign out), the account line the
// rooms and the library show, the "sign in or register" link that a refused change (401) offers,
// and the Keep toggle of My molecules. Rooms, the library, Explore and Design share it: there is
// one sign-in, and it returns to where the person was.
import * as api from './api.js';
import { showInvitations } from './invitations.js';

// What the server accepts (docs/rooms-protocol.md), checked here first so mistakes are named at once.
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** How the page names an account: its name, and "(administrator)" for the server's administrator. */
export function accountLabel(el, account) {
  return [el('strong', {}, account.name), ...(account.role === 'admin' ? [' (administrator)'] : [])];
}

/** The address of the sign-in page that comes back to `next` (by default, where the person is now). */
export function signInHref(next = location.hash) {
  const back = next && next.startsWith('#/') && !next.startsWith('#/signin') ? next : '#/';
  return `#/signin/${encodeURIComponent(back)}`;
}

/**
 * @param {{$: Function, el: Function, say: Function, refresh: () => void, roomItem: (room: object) => Node}} app
 *   refresh: shows the current screen again (after signing out); roomItem: a room of the profile's list
 */
export function setupAccount(app) {
  const { $, el, say } = app;
  // The session is read once at start and after each sign-in or out; screens wait for it.
  let ready = api.session().catch(() => null);

  /**
   * The account line: who is signed in (with Your profile and Sign out), or for a guest `guestText`
   * and a Sign in or register button that comes back here.
   */
  function accountBar(container, guestText = 'You are a guest: you can join public rooms by their link.') {
    const account = api.currentAccount();
    if (account) {
      container.replaceChildren(
        el('span', {}, 'Signed in as ', ...accountLabel(el, account), '.'),
        el('a', { href: '#/profile' }, 'Your profile'),
        el('button', { type: 'button', onclick: signOut }, 'Sign out'));
    } else {
      container.replaceChildren(
        el('span', {}, guestText),
        el('a', { class: 'button primary', href: signInHref() }, 'Sign in or register'));
    }
  }

  /**
   * What a change refused for want of an account (HTTP 401) says in the status line: `message`,
   * then a link to sign in or register that comes back here, then `then` ("press Get again").
   */
  function needsAccount(message, then) {
    say(message, {
      error: true,
      action: el('span', { class: 'sign-in-action' }, el('a', { href: signInHref(), class: 'sign-in-link' }, 'Sign in or register'), `, then ${then}.`),
    });
  }

  async function signOut() {
    try {
      await api.signOut();
      say('Signed out.');
    } catch (error) {
      say(`Could not sign out: ${error.message}`, { error: true });
    }
    ready = Promise.resolve(null);
    if (location.hash.startsWith('#/profile') || location.hash.startsWith('#/signin')) location.hash = '#/rooms';
    else app.refresh();
  }

  // ---- #/signin: sign in, or register ----
  let next = '#/rooms';
  async function showSignIn(arg) {
    next = arg && decodeURIComponent(arg).startsWith('#/') && !decodeURIComponent(arg).startsWith('#/signin') ? decodeURIComponent(arg) : '#/rooms';
    await ready;
    const account = api.currentAccount();
    $('signin-already').hidden = !account;
    if (account) $('signin-already-name').replaceChildren(...accountLabel(el, account));
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
      // The server's first account runs it: say what that means the first time, not in silence.
      const first = busyText === 'Registering…' && account.role === 'admin';
      say(first ? `Signed in as ${account.name}. You are this server's administrator (its first account): you may delete any molecule, and are asked first each time.`
        : `Signed in as ${account.name}${account.role === 'admin' ? ' (administrator)' : ''}.`, { carry: true });
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
    $('profile-role').hidden = answer.account.role !== 'admin';
    showInvitations(app, $('profile-invitations'), {
      empty: 'No invitations right now. When the owner of a room invites your e-mail, it shows here.',
      changed: showProfile,
    });
    const list = $('profile-rooms');
    list.replaceChildren(...answer.rooms.map(app.roomItem));
    if (answer.rooms.length === 0) list.append(el('li', { class: 'empty-note' }, 'You have no rooms yet. ', el('a', { href: '#/rooms' }, 'Create one'), '.'));
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

  /**
   * A toggle (aria-pressed) that keeps the molecule in My molecules or takes it off; `text` is its
   * visible label, `label` its accessible name; `onChange(kept)` after the server agreed.
   */
  function keepButton(id, kept, { label, text, onChange } = {}) {
    const button = el('button', { type: 'button', class: 'keep', 'aria-pressed': String(kept), 'aria-label': label }, text);
    button.addEventListener('click', async () => {
      const keep = button.getAttribute('aria-pressed') !== 'true';
      button.disabled = true;
      try {
        if (keep) await api.keepMolecule(id);
        else await api.unkeepMolecule(id);
        button.setAttribute('aria-pressed', String(keep));
        say(keep ? `Kept ${id} in My molecules.` : `Took ${id} off My molecules.`);
        onChange?.(keep);
      } catch (error) {
        if (api.needsAccount(error)) account.needsAccount('My molecules are kept for your account.', 'try again');
        else say(error.message, { error: true });
      } finally {
        button.disabled = false;
      }
    });
    return button;
  }

  return {
    /** Resolves once whether this browser is signed in is known. */
    ready: () => ready,
    show(view, arg) {
      if (view === 'signin') showSignIn(arg);
      else if (view === 'profile') showProfile();
    },
    accountBar,
    needsAccount,
    keepButton,
    signOut,
  };
}

// Marks the field wrong, says why next to it (a live region) and puts the cursor there.
export function fieldError(field, box, message) {
  field.setAttribute('aria-invalid', 'true');
  box.textContent = message;
  field.focus();
}

export function clearInvalid(form) {
  for (const field of form.querySelectorAll('[aria-invalid]')) field.removeAttribute('aria-invalid');
}
