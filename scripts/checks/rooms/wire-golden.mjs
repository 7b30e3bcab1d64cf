// The web app's reader of the rooms wire codec (Web/js/compact-snapshot.js) against the golden
// files the Swift writer is checked against (Tests/Fixtures/rooms-wire): the compact snapshot,
// expanded, is the client snapshot, number for number; the stored snapshot holds the same room.
//   node scripts/checks/rooms/wire-golden.mjs        prints ok/FAIL lines, exits 1 on a failure
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { expandSnapshot } from '../../../Web/js/compact-snapshot.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const golden = (name) => readFileSync(join(root, 'Tests/Fixtures/rooms-wire', name), 'utf8');
let failed = 0;
const check = (name, ok) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`); if (!ok) failed++; };

const client = JSON.parse(golden('client-snapshot.json'));
const compact = JSON.parse(golden('compact-snapshot.json'));
const stored = JSON.parse(golden('stored-snapshot.json'));
const expanded = expandSnapshot(compact);
check('the compact snapshot expands to the client snapshot', isDeepStrictEqual(expanded, { ...client, molecule: client.molecule ?? null, presentation: client.presentation ?? null }));
check('a plain snapshot passes through as it is', expandSnapshot(client) === client);
check('the stored snapshot holds the client snapshot\'s room',
  isDeepStrictEqual({ sequence: stored.sequence, strokes: stored.strokes, notes: stored.notes, molecule: stored.molecule, presentation: stored.presentation }, client));
const operations = golden('stored-operations.jsonl').trim().split('\n').map((line) => JSON.parse(line));
check('the stored operations are numbered 1… in order', operations.every((op, i) => op.sequence === i + 1 && op.operation?.type));
const message = (name) => JSON.parse(golden(`message-${name}.json`));
const welcome = message('welcome');
check('the welcome carries the client snapshot as it is', welcome.type === 'welcome' && isDeepStrictEqual(welcome.snapshot, client)
  && welcome.sequence === client.sequence && welcome.you?.mayDraw === true && welcome.room?.id);
const deflated = message('welcome-deflated');
check('a welcome that announces a deflated snapshot has none in it, and says its frame', deflated.snapshot === null
  && deflated.snapshotFrame?.format === 'compact-1' && deflated.snapshotFrame?.encoding === 'deflate-raw');
const op = message('op');
check('an op message is the stored operation with its type', op.type === 'op'
  && isDeepStrictEqual({ ...op, type: undefined }, { ...operations[0], type: undefined }));
check('ack, error and room-settings messages have the fields room-sync.js reads',
  message('ack').type === 'ack' && typeof message('ack').sequence === 'number' && message('error').code === 'forbidden'
  && message('room-settings').type === 'room-settings' && message('room-settings').you?.role === 'guest');
process.exit(failed ? 1 : 0);
