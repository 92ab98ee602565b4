"""``exactnet search``: seeded random search for counterexamples, shrunk to small numbers.

Properties (each decided only by checked certificates):

* ``hidden-symmetry``: ``certify`` proves ``HIDDEN-SYMMETRY`` (an explicit ``theta'``).
* ``full-rank-not-identifiable``: ``HIDDEN-SYMMETRY`` and a ``LOCALLY-IDENTIFIABLE``
  certificate (Jacobian rank ``D - N``): locally but not globally identifiable, as example A.
* ``minimal-not-identifiable``: ``HIDDEN-SYMMETRY`` for a network whose number of hidden neurons
  is minimal, either among **all architectures** (the kink lower bound of
  ``proofs/lemmas/minimal_deep_lower_bound.md`` equals it; any depth) or, for one hidden layer,
  among **one-hidden-layer** networks (:mod:`exactnet.minimality`,
  ``proofs/lemmas/minimal_shallow.md``). The output says which (``minimality.scope``).
* ``not-locally-identifiable``: a ``NOT-LOCALLY-IDENTIFIABLE`` certificate: a segment
  ``theta + t*Delta`` in the fibre, almost all of it outside the orbit, kept by a named mechanism
  (:mod:`exactnet.continuous_symmetry`, ``proofs/lemmas/not_locally_identifiable.md``). A rank
  below ``D - N`` alone proves nothing and is never used.

Candidates are ``random_network(arch, seed * 1_000_003 + k, max_num, max_den)``. A hit is
shrunk greedily: each parameter in turn is replaced by simpler values (0, then the integer
part, then numerator and denominator halved) as long as the property still holds, until
nothing changes. Every hit is saved as ``hit_<k>.json`` with its certificates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from flint import fmpq

from .errors import ExactnetError, UndecidedError
from .fileio import atomic_write_text, make_folder
from .netjson import dumps_network
from .network import Network
from .randnet import parse_architecture, random_network

__all__ = ["PROPERTIES", "Hit", "holds", "shrink", "search"]

PROPERTIES = ("minimal-not-identifiable", "hidden-symmetry", "full-rank-not-identifiable", "not-locally-identifiable")


@dataclass
class Hit:
    network: Network
    certificates: dict[str, str] = field(default_factory=dict)
    other: Network | None = None
    note: str = ""
    family: object = None  # a ContinuousFamily for not-locally-identifiable
    minimality: dict | None = None  # minimal-not-identifiable: scope and the evidence of the bound


def holds(net: Network, prop: str) -> Hit | None:
    """The hit with its certificates when ``prop`` is proved for ``net``, else None."""
    from .certify import certify

    if prop not in PROPERTIES:
        raise ExactnetError(f"unknown property {prop!r}: choose one of {', '.join(PROPERTIES)}")
    if prop == "not-locally-identifiable":
        from .continuous_symmetry import find_family

        fam = find_family(net)
        if fam is None:
            return None
        return Hit(net, {"not_locally_identifiable": fam.certificate}, None, fam.describe(), fam)
    res = certify(net)
    if res.verdict != "HIDDEN-SYMMETRY":
        return None
    hit = Hit(net, {"hidden_symmetry": res.certificate}, res.other, res.mechanism or "")
    if prop == "full-rank-not-identifiable":
        from .fdim import certify_local

        loc = certify_local(net)
        if loc.verdict != "LOCALLY-IDENTIFIABLE":
            return None
        hit.certificates["locally_identifiable"] = loc.certificate
    elif prop == "minimal-not-identifiable":
        from .minimality import deep_lower_bound, minimal_shallow
        from .qq import q_str

        lb = deep_lower_bound(net, count=8)
        if lb.any_depth == net.num_hidden:
            hit.note += (f"; minimal among all architectures: {len(lb.kinks)} kinks on a line need "
                         f"{lb.any_depth} hidden neurons (proofs/lemmas/minimal_deep_lower_bound.md)")
            hit.minimality = {"scope": "all architectures", "line": [[q_str(v) for v in x] for x in lb.line],
                              "kinks": [q_str(v) for v in lb.kinks], "lower_bound": lb.any_depth}
        else:
            if net.depth != 2:
                return None
            try:
                if minimal_shallow(net).neurons != net.num_hidden:
                    return None
            except ExactnetError:
                return None
            hit.note += "; minimal among one-hidden-layer networks (proofs/lemmas/minimal_shallow.md)"
            hit.minimality = {"scope": "one hidden layer", "lower_bound": net.num_hidden}
    return hit


def _simpler(q: fmpq) -> list[fmpq]:
    out = [fmpq(0)]
    p, d = int(q.p), int(q.q)
    if d > 1:
        out.append(fmpq(int(p / d) if p >= 0 else -int(-p / d)))  # integer part toward 0
        out.append(fmpq(p, d // 2))
    if abs(p) > 1:
        out.append(fmpq(p // 2 if p > 0 else -((-p) // 2), d))
    return [v for v in out if v != q and (abs(v.p), v.q) < (abs(q.p), q.q)]


def shrink(hit: Hit, prop: str, check: Callable[[Network, str], Hit | None] = holds) -> Hit:
    """Greedy shrinking of every parameter towards small numbers while the property holds."""
    changed = True
    while changed:
        changed = False
        params = hit.network.flatten()
        for k in range(len(params)):
            for v in _simpler(params[k]):
                trial = list(params)
                trial[k] = v
                cand = Network.unflatten(hit.network.architecture, trial)
                got = check(cand, prop)
                if got is not None:
                    hit, params, changed = got, trial, True
                    break
    return hit


def search(arch, prop: str, seed: int = 0, tries: int = 200, hits: int = 1, output: str | None = None,
           max_num: int = 4, max_den: int = 3) -> list[dict]:
    """Search ``tries`` seeded candidates for ``hits`` shrunk hits; save them when ``output`` is given."""
    a = parse_architecture(arch)
    if prop not in PROPERTIES:
        raise ExactnetError(f"unknown property {prop!r}: choose one of {', '.join(PROPERTIES)}")
    if prop == "not-locally-identifiable":
        from .continuous_symmetry import KIND, checker_knows_kind

        if not checker_knows_kind():
            raise UndecidedError(f"property not-locally-identifiable needs the certificate kind {KIND}, "
                                 "which the checker framework does not register yet")
    found: list[dict] = []
    folder = Path(output) if output else None
    if folder is not None:
        make_folder(folder)
    for k in range(tries):
        net = random_network(a, seed=seed * 1_000_003 + k, max_num=max_num, max_den=max_den)
        hit = holds(net, prop)
        if hit is None:
            continue
        hit = shrink(hit, prop)
        rec = {"try": k, "property": prop, "mechanism": hit.note, "network": dumps_network(hit.network)}
        if hit.family is not None:
            rec["family"] = hit.family.to_json()
        if hit.minimality is not None:
            rec["minimality"] = hit.minimality
        if folder is not None:
            stem = folder / f"hit_{k}"
            atomic_write_text(f"{stem}.json", dumps_network(hit.network))
            if hit.other is not None:
                atomic_write_text(f"{stem}.theta_prime.json", dumps_network(hit.other))
            for name, text in hit.certificates.items():
                atomic_write_text(f"{stem}.{name}.cert", text)
            rec["files"] = sorted(p.name for p in folder.glob(f"hit_{k}.*"))
        found.append(rec)
        if len(found) >= hits:
            break
    return found
