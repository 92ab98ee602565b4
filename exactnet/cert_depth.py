"""NOT-SHALLOW certificates: body lines from a checked witness, and the full text.

Layer: certificates on top of :mod:`exactnet.depth`. The body format is frozen in
``proofs/spec-1.0-not-shallow.md``; the lemma is ``proofs/lemmas/not_shallow.md``; the
checker is ``proofs/kind_not_shallow.py``. :func:`not_shallow_body` re-checks the witness
with the independent checker (``proofs/check.py``) before returning it (fail closed).
"""

from __future__ import annotations

from .depth import NotShallowWitness, find_not_shallow
from .errors import CertificateError, UndecidedError
from .network import Network

__all__ = ["not_shallow_body", "not_shallow_certificate", "verify_body"]


def verify_body(net: Network, body: list[str]) -> str:
    """Run the independent checker on a certificate with this body (CertificateError if rejected)."""
    from .certificate import check_certificate_text, write_certificate

    res = check_certificate_text(write_certificate("NOT-SHALLOW", net, body), net)
    if not res.verified:
        raise CertificateError("the checker rejected the NOT-SHALLOW certificate: " + " ".join(res.lines[1:]))
    return str(res.conclusion)


def not_shallow_body(net: Network, witness: NotShallowWitness | None = None, box=None) -> list[str]:
    """Body lines of a NOT-SHALLOW certificate; UndecidedError when no witness is found."""
    w = witness if witness is not None else find_not_shallow(net, box)
    if w is None:
        raise UndecidedError("no NOT-SHALLOW witness found: this proves nothing about the depth f needs")
    body = w.body_lines()
    verify_body(net, body)
    return body


def not_shallow_certificate(net: Network, witness: NotShallowWitness | None = None, box=None) -> str:
    """The whole certificate text, checked."""
    from .certificate import write_certificate

    return write_certificate("NOT-SHALLOW", net, not_shallow_body(net, witness, box))


