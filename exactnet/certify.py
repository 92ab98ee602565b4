"""``exactnet certify``: the verdict on a network's identifiability, with its certificate.

The verdict is one of

* ``HIDDEN-SYMMETRY``: an explicit ``theta'`` computes the same function and lies outside
  the orbit of ``theta`` (mechanism named);
* ``IDENTIFIABLE``: the fibre is the orbit (one hidden layer: :mod:`exactnet.shallow`; two
  hidden layers when the hypotheses of rule deep-2 hold: :mod:`exactnet.deep_identifiable`; three
  or more hidden layers, width 2 in all but the last two, by rules deep-3 and deep-n:
  :mod:`exactnet.deep3_identifiable`; the architecture (3,4,3,2,1) by rule deep-3d:
  :mod:`exactnet.deep3d_identifiable`);
* ``LOCALLY-IDENTIFIABLE``: the Jacobian has rank ``D - N`` at points inside activation
  regions, so no other parameter of the fibre is near ``theta`` (:mod:`exactnet.fdim`);
* ``UNDECIDED``: with the reason. This says nothing about the network.

Order of the attempts: the structural hidden-symmetry rules of
:mod:`exactnet.symmetry_rules` (any depth; when several apply, the one reported is chosen by an
orbit-invariant key, so a permuted or rescaled copy of a network without zero incoming rows is told
the same mechanism); the complete
shallow analysis for one hidden layer; the global theorems for two hidden layers (rule deep-2) and for
``(2, 2, n2, n3, m)`` (rule deep-3);
neurons dead or stably active on the whole input space without a structural reason
(:mod:`exactnet.sign_symmetry`); the exact fibre search for tiny deep networks (run on the
canonical form, whose theta' is moved back to the user's coordinates, so every member of an
orbit gets the same answer from it); the rank certificate. A verdict is printed only with a
certificate that the independent checker accepted.

Rule deep-2 searches on the canonical form first, then on the network as given
(:func:`exactnet.deep_identifiable.certify_deep`): every member of an orbit whose canonical form
it certifies gets IDENTIFIABLE; a network certified only in its own coordinates keeps that answer,
which a permuted or rescaled copy may then not share (LOCALLY-IDENTIFIABLE, also true). The
certificate is always about the network as given.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass, field
from typing import Callable

from .deep3_identifiable import covers_architecture
from .errors import ExactnetError, UndecidedError
from .network import Network
from .symmetry import canonical_form, canonical_map, pull_back, same_orbit
from .symmetry_rules import Rule, apply_rule, find_rules

__all__ = ["CertifyResult", "certify", "VERDICTS", "STAGES"]

VERDICTS = ("IDENTIFIABLE", "LOCALLY-IDENTIFIABLE", "HIDDEN-SYMMETRY", "UNDECIDED")


@dataclass
class CertifyResult:
    """A verdict with its reason, mechanism, witness and certificate text (None when UNDECIDED)."""

    verdict: str
    kind: str | None
    reason: str
    mechanism: str | None = None
    other: Network | None = None
    certificate: str | None = None
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        from .netjson import network_to_json

        out = {"verdict": self.verdict, "kind": self.kind, "reason": self.reason, "mechanism": self.mechanism}
        if self.other is not None:
            out["theta_prime"] = network_to_json(self.other)
        out.update(self.details)
        return out


def _have(name: str) -> bool:
    return importlib.util.find_spec(f"exactnet.{name}") is not None


#: Preference among structural rules when several apply, simplest explanation first (the order
#: in which :func:`exactnet.symmetry_rules.find_rules` tries them for one neuron).
RULE_PREFERENCE = ("unused", "dead", "active", "hidden", "split", "reflect", "flip")


def _canonical_args(rule: Rule, maps: list | None) -> tuple[int, ...] | None:
    """``rule``'s neuron indices translated to the canonical form by ``maps`` (from
    :func:`exactnet.symmetry.canonical_map`: canonical neuron ``j`` is neuron ``perm[j]`` of ``net``),
    a flip set sorted; None without a map."""
    if maps is None:
        return None
    perm = maps[rule.layer - 1][0]
    where = {p: j for j, p in enumerate(perm)}
    args = tuple(where[i] for i in rule.args)
    return tuple(sorted(args)) if rule.name == "flip" else args


def _rule_symmetry(net: Network, canon: Callable[[], tuple[Network, list] | None] | None = None
                   ) -> CertifyResult | None:
    """The first structural rule (:mod:`exactnet.symmetry_rules`) whose theta' leaves the orbit, in an
    order that is the same for every member of the orbit, so that a permuted or rescaled copy of
    ``net`` is told the same mechanism: by :data:`RULE_PREFERENCE`, then layer, then the neurons'
    indices in the canonical form (``canon()``, :func:`exactnet.symmetry.canonical_map`).

    The set of rules that apply is orbit-invariant (every side condition is a sign, zero or
    proportionality condition that permuting and positively scaling neurons keeps). Which of them
    leave the orbit is too, except with zero incoming rows: the sign moves of ``dead`` / ``active``
    change fixed entries (``W_(l+1)[0][i]``, ``b_l[i]``) and :func:`exactnet.symmetry.same_orbit`
    answers some zero-row pairs only with UndecidedError, so a copy may skip a candidate that the
    original keeps. Without zero rows the mechanism and layer chosen are the same for the orbit,
    and the neurons too when the canonical map exists (ties resolved alike), else the first in
    ``net``'s order. (Measured by a review: zero-row networks only, about 2% of the sampled ones
    with several rules, get two mechanism names; the verdict never differed.)
    The rule itself is applied to ``net`` in the user's indices, so the certificate (whose rule line
    the checker replays on ``net``) is about the network as given."""
    from .certificate import write_certificate

    rules = find_rules(net)
    if not rules:
        return None
    cm = (canon or (lambda: canonical_map(net)))()
    maps = None if cm is None else cm[1]
    rules.sort(key=lambda r: (RULE_PREFERENCE.index(r.name), r.layer, _canonical_args(r, maps) or ()))
    for rule in rules:  # sort is stable: without a map, net's own order within a layer
        other = apply_rule(net, rule)
        try:
            # with a canonical map net has no zero rows, and then same_orbit is this comparison
            if (canonical_form(other) == cm[0]) if cm is not None else same_orbit(net, other):
                continue
        except UndecidedError:
            continue
        body = [f"mechanism {rule.mechanism}", f"equivalence {rule.line()}"]
        text = write_certificate("HIDDEN-SYMMETRY", net, body, other=other)
        # the reason names the user's neurons; the same rule read in the canonical form is the same
        # for the whole orbit (JSON key canonical_rule, when the map exists)
        same = {} if maps is None else \
            {"canonical_rule": Rule(rule.name, rule.layer, _canonical_args(rule, maps)).line()}
        return CertifyResult(
            "HIDDEN-SYMMETRY", "HIDDEN-SYMMETRY",
            f"{rule.mechanism}: {rule.line()} gives theta' in the fibre outside the orbit",
            mechanism=rule.mechanism, other=other, certificate=text, details=same,
        )
    return None


def _changes(a: Network, b: Network, show: int = 4) -> str:
    """The parameters where ``b`` differs from ``a`` (same architecture), ``W[l][i][j] old -> new``
    and ``b[l][i] old -> new`` with layers from 1 and neurons from 0; at most ``show`` of them."""
    from .qq import q_str

    out = []
    for l in range(1, a.depth + 1):
        for i, (ra, rb) in enumerate(zip(a.weights(l), b.weights(l))):
            out += [f"W[{l}][{i}][{j}] {q_str(u)} -> {q_str(v)}" for j, (u, v) in enumerate(zip(ra, rb)) if u != v]
        out += [f"b[{l}][{i}] {q_str(u)} -> {q_str(v)}" for i, (u, v) in enumerate(zip(a.biases(l), b.biases(l)))
                if u != v]
    more = f" and {len(out) - show} more" if len(out) > show else ""
    return ", ".join(out[:show]) + more if out else "nothing"


FIBRE_SEARCH_MAX_HIDDEN = 10   # the search (exactnet.fibre_search) is exponential in flip sets


def _fibre_symmetry(net: Network, canon: Callable[[], tuple[Network, list] | None] | None = None
                    ) -> CertifyResult | None:
    """A hidden symmetry no structural rule names, found by the exact fibre search (for example a
    flip compensated only where a later neuron is active) and proved by an EQUIVALENT complex."""
    if net.depth < 3 or net.num_hidden > FIBRE_SEARCH_MAX_HIDDEN:
        return None
    from .certificate import write_certificate
    from .equivalence import equivalent_body

    for found in _fibre_candidates(net, canon):
        for point, other, detail in found:
            try:
                if same_orbit(net, other):
                    continue
                body = equivalent_body(net, other, max_cells=20000)
            except ExactnetError:
                continue
            mech = f"fibre-{point.move}"
            text = write_certificate("HIDDEN-SYMMETRY", net, [f"mechanism {mech}", "equivalence complex", *body],
                                     other=other)
            return CertifyResult("HIDDEN-SYMMETRY", "HIDDEN-SYMMETRY",
                                 f"{mech}: {detail}; theta' computes f (certified common complex) outside "
                                 "the orbit", mechanism=mech, other=other, certificate=text)
    return None


def _fibre_candidates(net: Network, canon: Callable[[], tuple[Network, list] | None] | None = None):
    """The fibre search's points as ``(point, theta', detail)`` in ``net``'s coordinates: the search
    runs on the canonical form of ``net`` and each point is moved back by the group element that
    maps ``net`` to it (:func:`exactnet.symmetry.pull_back`); on ``net`` itself only when that
    greedy map does not exist (ties, zero rows).

    The search's moves use fixed steps (a bias shift by 1, ...), so on ``net`` itself it could
    find a symmetry of ``theta`` and miss it on a rescaled copy ``g.theta`` (a review found one in
    450 seeded networks). The canonical form is the same for the whole orbit, so the answer is
    too. Moving ``theta'`` back by ``g^-1`` keeps it in the fibre and outside the orbit (both are
    orbit-invariant); the certificate is checked as usual. Measured on the review's 1,180 deep
    networks and the survey samples of (2,2,2,1), (2,3,3,1), (2,1,2,1): the same verdicts as the
    search on ``net``, in the same time. ``canon()`` gives :func:`exactnet.symmetry.canonical_map` of
    ``net`` (computed here when not given)."""
    from .fibre_search import search_fibre

    cm = (canon or (lambda: canonical_map(net)))()
    if cm is None:  # no greedy map (ties, zero rows): the search on net itself
        yield [(p, p.other, p.detail) for p in search_fibre(net, nudges=0, max_flips=256).found]
        return
    canon, maps = cm
    for p in search_fibre(canon, nudges=0, max_flips=256).found:
        other = pull_back(p.other, maps)
        # the move's own text names canonical indices and steps: describe theta' as the user sees it
        yield [(p, other, f"theta' changes {_changes(net, other)} (a {p.move} move, found on the canonical form)")]


def _sign_symmetry(net: Network) -> CertifyResult | None:
    """A neuron dead or stably active on all of ``R^n0`` without a structural reason, or two neurons
    never active together (proved by exact LP, :mod:`exactnet.sign_symmetry`); ``theta'`` proved in
    the fibre by a common complex."""
    if net.depth < 3:
        return None
    from .certificate import write_certificate
    from .sign_symmetry import find_sign_symmetry

    hit = find_sign_symmetry(net)
    if hit is None:
        return None
    if hit.body is None:
        return CertifyResult("UNDECIDED", None, f"{hit.describe()} (exact LP), but {hit.error}")
    text = write_certificate("HIDDEN-SYMMETRY", net, [f"mechanism {hit.mechanism}",
                             "equivalence complex", *hit.body], other=hit.other)
    return CertifyResult(
        "HIDDEN-SYMMETRY", "HIDDEN-SYMMETRY",
        f"{hit.mechanism}: {hit.describe()} (proved by exact LP); theta' computes f (certified common "
        "complex) outside the orbit",
        mechanism=hit.mechanism, other=hit.other, certificate=text)


#: What each attempt does, for the progress line of ``exactnet certify`` (stage names).
STAGES = {
    "_rule_symmetry": "structural hidden-symmetry rules",
    "certify_shallow": "one hidden layer: the complete answer",
    "certify_deep": "two hidden layers: rule deep-2",
    "certify_deep3": "width 2 in all hidden layers but the last two: rules deep-3, deep-n",
    "certify_deep3d": "architecture (3,4,3,2,1): rule deep-3d",
    "_sign_symmetry": "sign facts on the whole input space (exact LP)",
    "_fibre_symmetry": "exact fibre search",
    "certify_local": "Jacobian rank (functional dimension)",
}


def certify(net: Network, progress: Callable[[str], None] | None = None) -> CertifyResult:
    """Decide what can be proved about ``net`` and return the verdict with its certificate.

    ``progress(stage)`` is called before each attempt with its name from :data:`STAGES`, and
    with ``"checking the certificate"`` before the independent checker runs."""
    reasons: list[str] = []
    deep3d = tuple(net.architecture) == (3, 4, 3, 2, 1)
    if net.depth > 3 and not covers_architecture(net.architecture) and not deep3d:
        reasons.append("no proven global rule for this architecture (deep networks: rules deep-3 and deep-n need "
                       "width 2 in every hidden layer but the last two)")
    # the rule stage and the fibre search both need canonical_map(net): compute it at most once
    canon = functools.cache(lambda: canonical_map(net))
    attempts = []
    if _have("certificate"):
        attempts.append(functools.partial(_rule_symmetry, canon=canon))
    if net.depth == 2 and _have("shallow"):
        from .shallow import certify_shallow

        attempts.append(certify_shallow)
    if net.depth == 3 and _have("deep_identifiable"):
        from .deep_identifiable import certify_deep

        attempts.append(certify_deep)
    if covers_architecture(net.architecture) and _have("deep3_identifiable"):
        from .deep3_identifiable import certify_deep3

        attempts.append(certify_deep3)
    if deep3d and _have("deep3d_identifiable"):
        from .deep3d_identifiable import certify_deep3d

        attempts.append(certify_deep3d)
    if _have("sign_symmetry") and _have("equivalence"):
        attempts.append(_sign_symmetry)
    if _have("fibre_search"):
        attempts.append(functools.partial(_fibre_symmetry, canon=canon))
    if _have("fdim"):
        from .fdim import certify_local

        attempts.append(certify_local)
    for attempt in attempts:
        if progress is not None:
            name = getattr(attempt, "func", attempt).__name__
            progress(STAGES.get(name, name))
        res = attempt(net)
        if res is None:
            continue
        if res.verdict != "UNDECIDED":
            if progress is not None:
                progress("checking the certificate")
            res = _checked(res, net)
        if res.verdict != "UNDECIDED":
            if res.verdict == "LOCALLY-IDENTIFIABLE":  # the global question stayed open: say why
                why = "; ".join(reasons) or "no global rule applies"
                res.reason += f"; global identifiability is not decided ({why})"
            return res
        reasons.append(res.reason)
    return CertifyResult("UNDECIDED", None, "; ".join(reasons) or "no rule applies")


def _checked(res: CertifyResult, net: Network) -> CertifyResult:
    """Run the independent checker on the certificate; never report an unchecked verdict."""
    if res.certificate is None:
        raise ExactnetError(f"internal: verdict {res.verdict} without a certificate")
    from .certificate import check_certificate_text

    chk = check_certificate_text(res.certificate, network=net)
    if not chk.verified or chk.conclusion != res.verdict:
        return CertifyResult(
            "UNDECIDED", None,
            f"the {res.verdict} certificate did not pass the independent checker ({'; '.join(chk.lines[1:3])})",
        )
    return res
