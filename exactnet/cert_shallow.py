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

__all__ = ["certificate_for", "network_lines", "frame"]


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
