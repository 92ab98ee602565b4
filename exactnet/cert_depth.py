"""NOT-SHALLOW certificates: body lines from a checked witness, and the full text.

Layer: certificates on top of :mod:`exactnet.depth`. The body format is frozen in
``proofs/spec-1.0-not-shallow.md``; the lemma is ``proofs/lemmas/not_shallow.md``; the
checker is ``proofs/kind_not_shallow.py``. :func:`not_shallow_body` re-checks the witness
with the independent checker's ``verify`` before returning it (fail closed).
"""

from __future__ import annotations


import sys
from pathlib import Path

from .depth import NotShallowWitness, find_not_shallow
from .errors import CertificateError, UndecidedError
from .network import Network
from .qq import q_to_fraction

__all__ = ["not_shallow_body", "not_shallow_certificate", "verify_body"]


def _checker_verify():
    """The checker's ``verify`` (from the repository's ``proofs/`` next to the package)."""
    try:
        from proofs.kind_not_shallow import verify
    except ImportError:
        root = Path(__file__).resolve().parents[1]
        if not (root / "proofs" / "kind_not_shallow.py").is_file():
            raise CertificateError("the independent checker (proofs/) is not available") from None
        sys.path.append(str(root))
        from proofs.kind_not_shallow import verify
    return verify


def verify_body(net: Network, body: list[str]) -> str:
    """Run the checker's NOT-SHALLOW rule on ``body`` (raises CertificateError on failure)."""
    verify = _checker_verify()

    Ws = [[[q_to_fraction(v) for v in row] for row in net.weights(l)] for l in range(1, net.depth + 1)]
    bs = [[q_to_fraction(v) for v in net.biases(l)] for l in range(1, net.depth + 1)]

    def fail(kind: str, code: str, ln: int, msg: str) -> None:
        raise CertificateError(f"{code}: {msg} (body line {ln})")

    return verify(Ws, bs, [(k, line.split(" ")) for k, line in enumerate(body, 1)], fail)


def not_shallow_body(net: Network, witness: NotShallowWitness | None = None, box=None) -> list[str]:
    """Body lines of a NOT-SHALLOW certificate; UndecidedError when no witness is found."""
    w = witness if witness is not None else find_not_shallow(net, box)
    if w is None:
        raise UndecidedError("no NOT-SHALLOW witness found: this proves nothing about the depth f needs")
    body = w.body_lines()
    verify_body(net, body)
    return body


def not_shallow_certificate(net: Network, witness: NotShallowWitness | None = None, box=None) -> str:
    """The whole certificate text (needs the checker helper's ``exactnet.certificate``)."""
    body = not_shallow_body(net, witness, box)
    try:
        from .certificate import write_certificate  # type: ignore[attr-defined]
    except ImportError as e:
        raise CertificateError("the certificate writer (exactnet.certificate) is not installed") from e
    return write_certificate("NOT-SHALLOW", net, body)


