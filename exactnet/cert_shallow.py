"""Certificates of the one-hidden-layer verdicts (kinds IDENTIFIABLE and HIDDEN-SYMMETRY).

Bodies (``proofs/spec-1.0-identifiable.md``, ``proofs/spec-1.0-hidden-symmetry.md``):
IDENTIFIABLE ``rule shallow-1`` then ``exclude positive PHI...`` / ``exclude independent`` /
``exclude exhaustive`` steps (Lemma 4 of ``proofs/lemmas/shallow.md``); HIDDEN-SYMMETRY
``mechanism NAME`` and ``equivalence shallow-invariants`` with theta' as the ``other`` block.
The frame is written by :func:`exactnet.certificate.write_certificate` when it exists, else by
the small writer here (same format, ``proofs/check.py`` parses both).
"""

from __future__ import annotations

import hashlib

from .network import Network
from .qq import q_str

__all__ = ["certificate_for", "network_lines", "frame", "corpus_certificates"]


def network_lines(net: Network, name: str = "network") -> list[str]:
    """The ``<name> begin`` .. ``<name> end`` block and its digest line."""
    out = [f"{name} begin", "arch " + " ".join(map(str, net.architecture))]
    for L in net.layers:
        out += ["w " + " ".join(q_str(v) for v in row) for row in L.weights]
        out.append("b " + " ".join(q_str(v) for v in L.biases))
    out.append(f"{name} end")
    out.append(f"{name}-digest " + hashlib.sha256("".join(s + "\n" for s in out).encode("ascii")).hexdigest())
    return out


def frame(kind: str, net: Network, body: list[str], other: Network | None = None) -> str:
    """A complete certificate text (format of ``proofs/spec-1.0.md``)."""
    lines = ["exactnet certificate 1.0", f"kind {kind}"] + network_lines(net)
    if other is not None:
        lines += network_lines(other, "other")
    lines += list(body) + [f"conclusion {kind}"]
    lines.append("end " + hashlib.sha256("".join(s + "\n" for s in lines).encode("ascii")).hexdigest())
    return "".join(s + "\n" for s in lines)


def certificate_for(net: Network, verdict) -> str:
    """Certificate text of a :class:`exactnet.shallow.Verdict` (IDENTIFIABLE or HIDDEN-SYMMETRY)."""
    if verdict.verdict not in ("IDENTIFIABLE", "HIDDEN-SYMMETRY"):
        raise ValueError(f"no certificate for verdict {verdict.verdict}")
    other = verdict.other if verdict.verdict == "HIDDEN-SYMMETRY" else None
    try:
        from .certificate import write_certificate
    except ImportError:
        return frame(verdict.verdict, net, verdict.body, other)
    return write_certificate(verdict.verdict, net, verdict.body, other=other)


def _net(W, b, V, d) -> Network:
    return Network.from_lists([(W, b), (V, d)])


def corpus_certificates() -> dict[str, str]:
    """Checker corpus entries for rule ``shallow-2``: ``{"<folder>/<name>.cert": text}``.

    ``tests/certs/generate.py`` may call this; ``tests/test_cert_shallow.py`` checks the stored
    files equal it. Invalid entries are IDENTIFIABLE claims that are false or unprovable."""
    from .shallow import decide_shallow

    good = _net([[1, 0], [-1, 0], [1, 1]], [0, 0, 1], [[1, 2, 1], [0, 1, 1]], [0, 0])
    v = decide_shallow(good)
    assert v.verdict == "IDENTIFIABLE" and v.body == ["rule shallow-2"]
    claim = ["rule shallow-2"]
    wide = _net([[1, 0], [-1, 0]] + [[k, k * k - 7] for k in range(1, 15)], [0] * 16,
                [[1, 2] + [1] * 14], [0])
    return {
        "valid/identifiable_pair_2_3_2.cert": certificate_for(good, v),
        "invalid/shallow2_modes__E_MODES.cert": frame("IDENTIFIABLE", _net([[1], [-1], [1]], [0, 0, -1], [[1, 2, 1]], [0]), claim),
        "invalid/shallow2_dependent__E_DEPENDENT.cert": frame(
            "IDENTIFIABLE", _net([[1], [-1], [1], [-1]], [0, 0, -1, 1], [[1, 2, 1, 2]], [0]), claim),
        "invalid/shallow2_invisible__E_INVISIBLE.cert": frame(
            "IDENTIFIABLE", _net([[1], [-1], [1]], [0, 0, -1], [[1, -1, 1]], [0]), claim),
        "invalid/shallow2_same_orientation__E_SAME_HYPERPLANE.cert": frame(
            "IDENTIFIABLE", _net([[1], [2]], [0, 0], [[1, 1]], [0]), claim),
        "invalid/shallow2_limit__E_LIMIT.cert": frame("IDENTIFIABLE", wide, claim),
        "malformed/shallow2_extra_line__E_SYNTAX.cert": frame("IDENTIFIABLE", good, claim + ["exclude exhaustive"]),
    }
