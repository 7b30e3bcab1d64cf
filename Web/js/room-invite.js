// Inviting people to draw in a room, on the room screen (its owner only): an e-mail is invited,
// whether or not it has an account yet (the server answers the same either way and never says),
// and the person becomes a member only once they accept, from their profile or the rooms list
// (invitations.js). The invitations still waiting are listed here, each with Withdraw.
import * as api from './api.js';
import { clearInvalid, fieldError } from './account.js';

// What the server accepts (the same check as registering), so a typo is named at once.
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * @param {{$: Function, el: Function, say: Function}} app
 * @param {{roomID: () => string|null}} roomScreen  the open room
 */
export function setupRoomInvite(app, roomScreen) {
  const { $, el, say } = app;

  /** Shows the form for the room's owner (and reads who is invited), hides it for everyone else. */
  let shown = null;   // the room the form was last shown for: its words stay while it is open
  function show(room) {
    const owner = room.role === 'owner';
    $('room-invite').hidden = !owner;
    if (!owner) return;
    if (shown !== room.id) {
      shown = room.id;
      $('room-invite-sent').textContent = '';
      $('room-invite-error').textContent = '';
      $('room-invitations').replaceChildren();
    }
    api.roomInvitations(room.id).then(({ invitations }) => list(room.id, invitations)).catch(() => {});
  }

  function list(id, emails) {
    if (id !== roomScreen.roomID()) return;
    const items = emails.map((email) => el('li', { class: 'row', 'data-email': email },
      el('span', {}, email), ' ',
      el('button', { type: 'button', 'aria-label': `Withdraw the invitation to ${email}`, onclick: () => withdraw(id, email) }, 'Withdraw')));
    $('room-invitations').replaceChildren(...items);
    if (emails.length === 0) $('room-invitations').append(el('li', { class: 'empty-note' }, 'Nobody is waiting to answer an invitation.'));
  }

  async function withdraw(id, email) {
    try {
      const { invitations } = await api.withdrawInvitation(id, email);
      list(id, invitations);
      say(`Withdrew the invitation to ${email}.`);
    } catch (error) {
      say(error.message, { error: true });
    }
  }

  $('room-invite').addEventListener('submit', async (e) => {
    e.preventDefault();
    const field = $('room-invite-email'), error = $('room-invite-error'), id = roomScreen.roomID();
    error.textContent = '';
    clearInvalid(e.target);
    const email = field.value.trim();
    if (!id) return;
    if (!EMAIL.test(email) || email.length > 254) return fieldError(field, error, 'Type their e-mail address, such as ben@example.org.');
    const button = e.target.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const answer = await api.inviteToRoom(id, email);
      field.value = '';
      const sent = `Invitation sent to ${answer.invited} — they will see it when they sign in with that e-mail (or register with it), and can draw here once they accept.`;
      $('room-invite-sent').textContent = sent;
      say(sent);
      list(id, answer.invitations);
    } catch (failure) {
      const message = failure.status === 429 ? `${failure.message}. You have sent many invitations; try again later.` : failure.message;
      fieldError(field, error, message.charAt(0).toUpperCase() + message.slice(1));
    } finally {
      button.disabled = false;
    }
  });

  return { show };
}
