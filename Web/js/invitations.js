// The invitations waiting for the signed-in person (GET /api/invitations): which room, who invited,
// with Accept (they become a member and may draw there) and Decline (the invitation goes, nothing
// else changes). Shown on the profile (#/profile, with an empty state) and above the rooms list
// (#/rooms, only when there are some).
import * as api from './api.js';

/**
 * Fills `list` (a <ul>) with the person's invitations; resolves with how many there are.
 * @param {{el: Function, say: Function}} app
 * @param {HTMLElement} list
 * @param {{empty?: string|null, changed?: () => void}} options  empty: the empty state's words (null: none);
 *   changed: after an invitation was accepted or declined
 */
export async function showInvitations(app, list, { empty = null, changed = () => {} } = {}) {
  const { el, say } = app;
  let invitations;
  try {
    ({ invitations } = await api.myInvitations());
  } catch (error) {
    if (error.status !== 401) say(error.message, { error: true });
    list.replaceChildren();
    return 0;
  }
  const item = (invitation) => {
    const name = invitation.roomName;
    const from = invitation.invitedBy ? `${invitation.invitedBy} invited you to draw here` : 'You are invited to draw here';
    const row = el('li', { 'data-invitation': invitation.room },
      el('span', { class: 'room-name' }, name),
      el('span', { class: 'meta' }, `${from}, ${new Date(invitation.invitedAt).toLocaleDateString()}.`),
      el('div', { class: 'row' },
        el('button', { type: 'button', class: 'primary', 'aria-label': `Accept the invitation to ${name}`, onclick: () => answer(invitation, true, row) }, 'Accept'),
        el('button', { type: 'button', 'aria-label': `Decline the invitation to ${name}`, onclick: () => answer(invitation, false, row) }, 'Decline')));
    return row;
  };
  async function answer(invitation, accept, row) {
    for (const button of row.querySelectorAll('button')) button.disabled = true;
    try {
      if (accept) {
        await api.acceptInvitation(invitation.room);
        say(`You are a member of ${invitation.roomName} now: you may draw there.`, {
          action: el('a', { href: `#/rooms/${encodeURIComponent(invitation.room)}` }, `Open ${invitation.roomName}`),
        });
      } else {
        await api.declineInvitation(invitation.room);
        say(`Declined the invitation to ${invitation.roomName}.`);
      }
      changed();
    } catch (error) {
      say(error.message, { error: true });
      for (const button of row.querySelectorAll('button')) button.disabled = false;
    }
  }
  list.replaceChildren(...invitations.map(item));
  if (invitations.length === 0 && empty) list.append(el('li', { class: 'empty-note' }, empty));
  return invitations.length;
}
