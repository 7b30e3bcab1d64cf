"""`proteinar interactions FILE --json` against PLIP 3.0.1 (Salentin et al. 2015), the independent
interaction profiler, on the 55 protein–ligand complexes of PLIP's own test set
(Tests/Fixtures/structures/complexes). Per kind: ours, PLIP's, both, precision and recall, as two
tables; the bar is 0.9 for both for hydrogen bonds, salt bridges, metal coordination and π-stacking:

- **given the same hydrogens**: PLIP protonates each complex (Open Babel's polar hydrogens) and
  writes it; PLIP (with its --nohydro setting) and we both read that file, so the two find
  interactions from one chemistry. Open Babel writes alternate locations without their letters
  (two copies of an atom under one name), so here an interaction named twice counts once. The bar
  holds for all four kinds.
- **each with its own hydrogens**: the deposited file, PLIP adding Open Babel's by valence, we
  typing at pH 7. The bar holds for salt bridges, π-stacking and metal coordination; the H-bonds'
  is not met (the donors differ where Open Babel protonates a carboxylate, a phosphate or a
  sulfate: docs/interactions.md), a strict expected failure that says so in every run (and fails
  once it holds, until its mark is taken away).

Interactions are matched by the atoms that make them, named (chain, residue number, atom name):
an H-bond by its two atoms (whichever gives the hydrogen), a hydrophobic contact by its two carbons, stacking by the two
rings' atoms, a water bridge by its two atoms and the water, a metal complex by metal and coordinating
atom, a halogen bond by halogen and acceptor; a salt bridge and cation–π by the two residues. PLIP
runs in its own venv (scripts/tools/setup-plip.sh: PyPI's plip over Debian's Open Babel).
"""
import collections
import glob
import json
import os
import re
import subprocess

import pytest

from proteinar_testing import command_line
from proteinar_testing.paths import FIXTURES, ROOT, TOOLS

COMPLEXES = sorted(glob.glob(os.path.join(FIXTURES, "complexes", "*.pdb.gz")))
PLIP_PYTHON = os.path.join(ROOT, os.environ.get("PROTEINAR_PLIP_VENV", ".venv-plip"), "bin", "python")
KINDS = ["hydrogen-bond", "salt-bridge", "pi-stacking", "metal-complex", "cation-pi", "hydrophobic", "halogen-bond", "water-bridge"]
BAR = {"hydrogen-bond": 0.9, "salt-bridge": 0.9, "pi-stacking": 0.9, "metal-complex": 0.9}


def number(text):
    return int(re.match(r"-?\d+", str(text)).group())


def atom(a):
    return [a["chain"], number(a["number"]), a["atom"]]


def our_keys(binary, path):
    """Our interactions as PLIP's runner (scripts/tools/plip-profile.py) writes its own."""
    keys = []
    for site in command_line.answer(binary, "interactions", path)["sites"]:
        for e in site["interactions"]:
            kind, lig, par = e["kind"], e["ligand"], e["partner"]
            if kind == "hydrogen-bond":
                keys.append([kind, *sorted([atom(lig[0]), atom(par[0])])])
            elif kind == "water-bridge":
                keys.append([kind, *sorted([atom(lig[0]), atom(par[0])]), atom(e["water"])])
            elif kind in ("salt-bridge", "cation-pi"):
                keys.append([kind, atom(par[0])[:2], atom(lig[0])[:2]])
            elif kind == "pi-stacking":
                keys.append([kind, sorted(map(atom, par)), sorted(map(atom, lig))])
            elif kind == "hydrophobic":
                keys.append([kind, atom(par[0]), atom(lig[0])])
            else:  # metal complex: metal, target; halogen bond: halogen, acceptor
                keys.append([kind, atom(lig[0]), atom(par[0])])
    return keys


def plip_keys(path, *options):
    p = subprocess.run([PLIP_PYTHON, os.path.join(TOOLS, "plip-profile.py"), path, *options], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"PLIP on {os.path.basename(path)}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
    keys = json.loads(p.stdout)
    # An H-bond (or a water bridge) is matched by its two atoms, whichever gives the hydrogen: without
    # hydrogens in the file, which of two hydroxyls donates is a guess (PLIP's is Open Babel's placing).
    return [[k[0], *sorted(k[1:3]), *k[3:]] if k[0] in ("hydrogen-bond", "water-bridge") else k for k in keys]


class Tally:
    """Per kind: ours, PLIP's and both, with a few of the differences. `distinct`: an interaction
    named twice counts once (in a file whose alternate locations lost their letters, two copies of
    an atom have one name, and PLIP stacks every combination of a ring's copies)."""

    def __init__(self, distinct=False):
        self.ours, self.plip, self.both = collections.Counter(), collections.Counter(), collections.Counter()
        self.differing = collections.defaultdict(list)
        self.distinct = distinct
        self.differing_keys, self.agreed_keys = set(), set()  # (complex, key): one side has it alone; both have it

    def add(self, name, ours_keys, theirs_keys):
        ours = collections.Counter(json.dumps(k) for k in ours_keys)
        theirs = collections.Counter(json.dumps(k) for k in theirs_keys)
        if self.distinct:
            ours, theirs = collections.Counter(set(ours)), collections.Counter(set(theirs))
        for counter, total in ((ours, self.ours), (theirs, self.plip), (ours & theirs, self.both)):
            for key, n in counter.items():
                total[json.loads(key)[0]] += n
        for key in ours - theirs:
            self.differing[json.loads(key)[0]].append(f"{name} ours only {json.loads(key)[1:]}")
        for key in theirs - ours:
            self.differing[json.loads(key)[0]].append(f"{name} PLIP only {json.loads(key)[1:]}")
        self.differing_keys |= {(name, key) for key in (ours - theirs) + (theirs - ours)}
        self.agreed_keys |= {(name, key) for key in ours & theirs}

    def table(self, title):
        """(precision, recall) per kind, printed as a table."""
        out = {}
        print(f"\n{title}\n{'kind':15} {'ours':>6} {'PLIP':>6} {'both':>6} {'precision':>9} {'recall':>7}")
        for kind in KINDS:
            precision = self.both[kind] / self.ours[kind] if self.ours[kind] else 1.0
            recall = self.both[kind] / self.plip[kind] if self.plip[kind] else 1.0
            out[kind] = (precision, recall)
            bar = BAR.get(kind)
            print(f"{kind:15} {self.ours[kind]:6} {self.plip[kind]:6} {self.both[kind]:6} {precision:9.3f} {recall:7.3f}" + (f"   (bar {bar})" if bar else ""))
        for kind in KINDS:
            for line in self.differing[kind][:4]:
                print(f"  {kind}: {line}")
        return out


_tables = {}


def comparison(proteinar_bin, tmp_path_factory, hydrogens):
    """Both tables over the 55 complexes, made once; `hydrogens` is "shared" or "own"."""
    if not _tables:
        assert len(COMPLEXES) == 55, f"expected PLIP's 55 complexes in {FIXTURES}/complexes, found {len(COMPLEXES)}"
        assert os.path.exists(PLIP_PYTHON), f"no PLIP venv at {PLIP_PYTHON}: run scripts/tools/setup-plip.sh"
        folder = tmp_path_factory.mktemp("plip-protonated")
        own, shared = Tally(), Tally(distinct=True)
        for path in COMPLEXES:
            name = os.path.basename(path).split(".")[0]
            protonated = str(folder / f"{name}.pdb")
            own.add(name, our_keys(proteinar_bin, path), plip_keys(path, "--protonated-out", protonated))
            shared.add(name, our_keys(proteinar_bin, protonated), plip_keys(protonated, "--hydrogens-given"))
        _tables["shared"] = shared.table("Given the same hydrogens (the file PLIP protonated, read by both):")
        _tables["own"] = own.table("Each with its own hydrogens (the deposited file: PLIP adds Open Babel's, we type at pH 7):")
        for kind in ("hydrogen-bond", "water-bridge"):
            apart = {d for d in own.differing_keys if json.loads(d[1])[0] == kind}
            print(f"{kind}: of the {len(apart)} one side alone finds with its own hydrogens, given the same hydrogens "
                  f"{len(apart & shared.agreed_keys)} are found by both, {len(apart - shared.agreed_keys - shared.differing_keys)} by neither, "
                  f"{len(apart & shared.differing_keys)} still by one side")
    return _tables[hydrogens]


@pytest.mark.parametrize("kind", ["hydrogen-bond", "salt-bridge", "pi-stacking", "metal-complex"])
def test_interactions_agree_with_plip_given_the_same_hydrogens(proteinar_bin, tmp_path_factory, kind):
    precision, recall = comparison(proteinar_bin, tmp_path_factory, "shared")[kind]
    assert precision >= BAR[kind] and recall >= BAR[kind], f"{kind}: precision {precision:.3f}, recall {recall:.3f} against PLIP (bar {BAR[kind]})"


@pytest.mark.parametrize("kind", ["salt-bridge", "pi-stacking", "metal-complex"])
def test_interactions_agree_with_plip(proteinar_bin, tmp_path_factory, kind):
    precision, recall = comparison(proteinar_bin, tmp_path_factory, "own")[kind]
    assert precision >= BAR[kind] and recall >= BAR[kind], f"{kind}: precision {precision:.3f}, recall {recall:.3f} against PLIP (bar {BAR[kind]})"


# Each with its own hydrogens, the H-bonds' bar is not met: PLIP's donors are Open Babel's
# protonation by valence (a carboxylic acid, a phosphate or sulfate oxygen donates), ours pH 7's;
# why, in docs/interactions.md. Given the same hydrogens they agree (the test above). Strict: once
# it holds, this fails until the mark is taken away.
@pytest.mark.xfail(strict=True, reason="issue 33: H-bonds under the 0.9 bar against PLIP when each protonates its own way (docs/interactions.md)")
def test_hydrogen_bonds_agree_with_plip(proteinar_bin, tmp_path_factory):
    precision, recall = comparison(proteinar_bin, tmp_path_factory, "own")["hydrogen-bond"]
    assert precision >= BAR["hydrogen-bond"] and recall >= BAR["hydrogen-bond"], f"H-bonds: precision {precision:.3f}, recall {recall:.3f}"
