// Who is here, beside the room screen's view: the people drawing or able to draw, by name and
// role, each with the colour of their marker in the view; people watching without an account or
// a guest key are only counted (the server sends their number, not who they are).
import { peerColor } from './peer-markers.js';

/**
 * Lists who is in the room in #room-peers.
 * @param {{$: Function, el: Function}} app
 * @param {object|null} sync  the room's connection (RoomSync), or null
 * @param {{id: string}|null} you  who this page is in the room, once welcomed
 */
export function showRoomPeople(app, sync, you) {
  const { $, el } = app;
  const peers = sync?.peers ?? [];
  const live = sync?.status === 'live';
  $('room-peers').replaceChildren(...peers.map((p) => el('li', { 'data-peer': p.id },
    el('span', { class: 'peer-dot', 'aria-hidden': 'true', style: { '--peer': peerColor(p.id ?? p.connection) } }), p.name ?? 'Someone',
    el('span', { class: 'meta' }, ` · ${p.role ?? 'guest'}${you && p.id === you.id ? ' (you)' : ''}`))));
  if (peers.length === 0) {
    $('room-peers').append(el('li', { class: 'empty-note' }, !live ? 'Not connected.'
      : sync.peersHidden ? 'Who is here is shown to people who sign in or draw as guests.' : 'Only you.'));
  }
  const watchers = live ? sync.watchers : 0;
  if (watchers > 0) {
    $('room-peers').append(el('li', { class: 'watchers meta', 'data-watchers': String(watchers) },
      `${watchers} ${watchers === 1 ? 'person' : 'people'} watching without an account`));
  }
}
