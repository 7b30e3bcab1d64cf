// The Explore screen's details of a molecule: its facts, chains with their sequences, ligands and
// links, and what someone may do with it here (add it to the library, keep it in My molecules,
// keep it offline on this device).
import * as api from './api.js';
import { keepOfflineToggle, offlineSupported } from './offline.js';
import { signInHref } from './account.js';

/**
 * @param {{$: Function, el: Function, say: Function, account: object, current: () => object|null,
 *   replaceCurrent: (m: object) => void}} app  current: the molecule shown; replaceCurrent: what
 *   adding it to the library changes
 * @returns {{show: (m: object) => void, refresh: (m: object) => void}}
 */
export function setupDetails({ $, el, say, account, current, replaceCurrent }) {
  // Numbers a student can copy: amino acids (or nucleotides) apart from ligands and waters, which
  // a file counts as residues too. Summaries stored before these counts fall back to residues.
  const unit = (type, n) => (/ribonucleotide|nucleic|dna|rna/i.test(type ?? '') ? (n === 1 ? 'nucleotide' : 'nucleotides')
    : n === 1 ? 'amino acid' : 'amino acids');
  function counts(m, d) {
    const chains = d.chains ?? [];
    if (chains.some((c) => c.monomers === undefined) || d.waters === undefined) return [['Residues', m.residues.toLocaleString()]];
    const polymers = chains.filter((c) => c.monomers > 0);
    const monomers = polymers.reduce((n, c) => n + c.monomers, 0);
    const kind = polymers.length && polymers.every((c) => unit(c.type, 2) === 'nucleotides') ? 'Nucleotides' : 'Amino acids';
    const ligands = (d.ligands ?? []).reduce((n, l) => n + l.count, 0);
    return [[kind, monomers.toLocaleString()], ['Ligands', ligands ? ligands.toLocaleString() : null], ['Waters', d.waters ? d.waters.toLocaleString() : null]];
  }
  function chainWords(c) {
    if (c.monomers === undefined) return `${c.type}, ${c.residues} residues`;
    if (c.monomers > 0) return `${c.type}, ${c.monomers} ${unit(c.type, c.monomers)}`;
    return c.type === 'water' ? `${c.residues} waters` : `${c.type}, ${c.residues} ${c.residues === 1 ? 'group' : 'groups'}`;
  }
  // "BIS(ADENOSINE)-5'-PENTAPHOSPHATE" as the dictionary writes it → "bis(adenosine)-5′-pentaphosphate".
  const readableName = (name) => (name === name.toUpperCase() ? name.toLowerCase() : name).replace(/'/g, '′');

  function showDetails(m) {
    const d = m.details ?? {};
    $('details').hidden = false;
    $('details-title').textContent = `${m.id}: ${m.title}`;
    const facts = [
      ['Authors', (d.authors ?? []).join(', ')], ['Method', m.method], ['Resolution', m.resolution ? `${m.resolution.toFixed(2)} Å` : null],
      ['Organism', m.organism], ['Atoms', m.atoms.toLocaleString()], ...counts(m, d),
      ['Deposited', d.depositionDate], ['About', m.description],
    ].filter(([, v]) => v);
    $('details-facts').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
    $('details-chains').replaceChildren(...(d.chains ?? []).map((c) =>
      el('li', {}, el('strong', {}, `Chain ${c.id}`), ` · ${chainWords(c)} `, el('div', { class: 'sequence' }, c.sequence))));
    const ligands = d.ligands ?? [];
    $('details-ligands').replaceChildren(...(ligands.length
      ? ligands.map((l) => el('li', {}, el('strong', {}, l.name), l.fullName ? `: ${readableName(l.fullName)}` : '', ` × ${l.count}`))
      : [el('li', {}, 'None')]));
    const links = [];
    if (/^[1-9][A-Z0-9]{3}$/.test(m.id)) links.push(el('a', { href: `https://www.rcsb.org/structure/${m.id}`, target: '_blank', rel: 'noopener' }, `${m.id} at RCSB PDB`));
    links.push(el('a', { href: 'https://pdb101.rcsb.org/', target: '_blank', rel: 'noopener' }, 'PDB-101'));
    $('details-links').replaceChildren(...links.flatMap((a, i) => (i ? [' · ', a] : [a])));
    showLibraryPlace(m);
    showKeep(m.id);
    showKeepOffline(m.id);
  }

  // An entry opened from the archive is not in the library (inLibrary false): someone signed in may
  // add it (to the library and to their My molecules); anyone else reads that the server keeps it a
  // while and that signing in lets them add it.
  async function showLibraryPlace(m) {
    const slot = $('details-library');
    slot.replaceChildren();
    if (m.inLibrary !== false) return;
    await account.ready();
    if (current()?.id !== m.id || current().inLibrary !== false) return;
    if (api.currentAccount()) {
      const add = el('button', { type: 'button', id: 'add-to-library', class: 'primary', onclick: () => addToLibrary(m.id, add) }, 'Add to the library');
      slot.replaceChildren(add, ' ', el('span', { class: 'keep-note' }, 'Opened from the archive: adding it keeps it here for everyone, and in your My molecules.'));
    } else {
      slot.replaceChildren(el('span', { class: 'archive-note' }, `${m.id} was opened from the archive and is kept on this server for a while. `,
        el('a', { href: signInHref(), class: 'sign-in-link' }, 'Sign in or register'), ' to add it to the library.'));
    }
  }

  async function addToLibrary(id, button) {
    button.disabled = true;
    say(`Adding ${id} to the library…`);
    try {
      const m = await api.fetchEntry(id, { onProgress: (p) => say(p.message) });
      if (current()?.id === id) {
        replaceCurrent({ ...current(), ...m, inLibrary: true });
        showLibraryPlace(current());
        showKeep(id);
      }
      say(`Added ${id} to the library and to My molecules.`);
    } catch (error) {
      button.disabled = false;
      if (api.needsAccount(error)) account.needsAccount(`Adding ${id} to the library needs an account.`, 'press “Add to the library” again');
      else say(error.message, { error: true });
    }
  }

  // Keep offline: this molecule's files stay on this device (no account needed), with how much is kept.
  function showKeepOffline(id) {
    const slot = $('details-offline');
    if (!offlineSupported()) { slot.replaceChildren(); return; }
    const note = el('span', { class: 'keep-note', id: 'details-offline-note' });
    slot.replaceChildren(keepOfflineToggle({ el, say }, id, { note }), ' ', note);
  }

  // Keep in My molecules, for someone signed in: pressed when the molecule is on their list.
  // Not for an entry opened from the archive: "Add to the library" stands for it until it is added.
  async function showKeep(id) {
    const slot = $('details-keep');
    slot.replaceChildren();
    await account.ready();
    if (!api.currentAccount() || current()?.id !== id || current().inLibrary === false) return;
    let kept = false;
    try {
      kept = (await api.keptIDs()).has(id);
    } catch {
      return;  // the list cannot be read now: no button rather than a wrong one
    }
    if (current()?.id !== id || current().inLibrary === false) return;
    slot.replaceChildren(account.keepButton(id, kept, { label: `Keep ${id} in My molecules`, text: 'Keep in My molecules' }),
      ' ', el('a', { href: '#/library/mine', class: 'button' }, 'My molecules'));
  }

  return {
    /** Shows molecule `m`'s details. */
    show: showDetails,
    /** Back from signing in (or out): Keep and Add to the library follow. */
    refresh(m) { showLibraryPlace(m); showKeep(m.id); },
  };
}
