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
check('the compact snapshot expands to the client snapshot', isDeepStrictEqual(expanded, { ...client, molecule: client.molecule ?? null }));
check('a plain snapshot passes through as it is', expandSnapshot(client) === client);
check('the stored snapshot holds the client snapshot\'s room',
  isDeepStrictEqual({ sequence: stored.sequence, strokes: stored.strokes, notes: stored.notes, molecule: stored.molecule }, client));
const operations = golden('stored-operations.jsonl').trim().split('\n').map((line) => JSON.parse(line));
check('the stored operations are numbered 1… in order', operations.every((op, i) => op.sequence === i + 1 && op.operation?.type));
process.exit(failed ? 1 : 0);
