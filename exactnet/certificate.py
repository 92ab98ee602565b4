"""Producer side of the certificate format ``exactnet certificate 1.0`` (``proofs/spec-1.0.md``).

``write_certificate`` builds the exact text (header, kind, embedded network blocks with their
digests, the kind's body, conclusion, footer digest) in canonical spelling.
``check_certificate_text`` runs the independent checker ``proofs/check.py``, loaded by file
path (exactnet may import the checker; the checker never imports exactnet).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import Sequence

from .errors import CertificateError
from .network import Network
from .qq import q_str

__all__ = ["VERSION", "KINDS", "CheckResult", "network_block", "write_certificate",
           "check_certificate_text", "load_checker", "locally_identifiable_body",
           "not_equivalent_body"]

VERSION = "1.0"
KINDS = ("REGIONS", "LOCALLY-IDENTIFIABLE", "HIDDEN-SYMMETRY", "IDENTIFIABLE", "NOT-SHALLOW",
         "EQUIVALENT", "NOT-EQUIVALENT", "NOT-LOCALLY-IDENTIFIABLE")
_TWO = ("EQUIVALENT", "NOT-EQUIVALENT", "HIDDEN-SYMMETRY")


@dataclass
class CheckResult:
    """The checker's answer: exit code, verified flag, conclusion (or None), output lines."""

    exit_code: int
    verified: bool
    conclusion: str | None
    lines: list[str]

    def __iter__(self):  # (ok, conclusion, lines), the older tuple form
        return iter((self.verified, self.conclusion, self.lines))

    def __getitem__(self, i):
        return (self.verified, self.conclusion, self.lines)[i]


def _digest(lines: Sequence[str]) -> str:
    return hashlib.sha256("".join(s + "\n" for s in lines).encode("ascii")).hexdigest()


def network_block(net: Network, name: str = "network") -> list[str]:
    """``<name> begin`` .. ``<name> end`` and ``<name>-digest`` lines of a network."""
    lines = [f"{name} begin", "arch " + " ".join(str(n) for n in net.architecture)]
    for layer in net.layers:
        lines += ["w " + " ".join(q_str(v) for v in row) for row in layer.weights]
        lines.append("b " + " ".join(q_str(v) for v in layer.biases))
    lines.append(f"{name} end")
    return lines + [f"{name}-digest {_digest(lines)}"]


def write_certificate(kind: str, net: Network, body_lines: Sequence[str], other: Network | None = None) -> str:
    """The whole certificate text of ``kind`` for ``net`` (and ``other`` where the kind needs it)."""
    if kind not in KINDS:
        raise CertificateError(f"unknown certificate kind {kind!r}")
    if (kind in _TWO) != (other is not None):
        raise CertificateError(f"kind {kind} {'needs' if kind in _TWO else 'takes no'} second network")
    lines = [f"exactnet certificate {VERSION}", f"kind {kind}"] + network_block(net)
    if other is not None:
        lines += network_block(other, "other")
    for s in body_lines:
        if not s or s != s.strip() or "  " in s or "\n" in s or not s.isascii():
            raise CertificateError(f"bad body line {s!r}: one space between tokens, ASCII")
        lines.append(s)
    lines.append(f"conclusion {kind}")
    lines.append(f"end {_digest(lines)}")
    return "".join(s + "\n" for s in lines)


_CHECKER = None


def load_checker():
    """The module ``proofs.check`` (loaded from the repository's ``proofs/`` folder)."""
    global _CHECKER
    if _CHECKER is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        path = os.path.join(root, "proofs", "check.py")
        if not os.path.exists(path):
            raise CertificateError(f"checker not found at {path}")
        if root not in sys.path:
            sys.path.append(root)
        spec = importlib.util.spec_from_file_location("proofs.check", path)
        mod = sys.modules.get("proofs.check")
        if mod is None or os.path.abspath(getattr(mod, "__file__", "")) != os.path.abspath(path):
            import proofs  # noqa: F401  (package so that kind modules import 'proofs.check')
            mod = importlib.util.module_from_spec(spec)
            sys.modules["proofs.check"] = mod
            spec.loader.exec_module(mod)
        _CHECKER = mod
    return _CHECKER


def check_certificate_text(text: str, network: Network | str | None = None) -> CheckResult:
    """Run the independent checker on ``text`` (bound to ``network`` when given)."""
    from .netjson import dumps_network

    chk = load_checker()
    net_text = None
    if network is not None:
        net_text = network if isinstance(network, str) else dumps_network(network)
    code, verdict, diags = chk.check_text(text, net_text)
    conclusion = verdict.split(" ", 2)[2] if code == 0 else None
    return CheckResult(code, code == 0, conclusion, [verdict] + list(diags))


def locally_identifiable_body(net: Network, points: Sequence[Sequence[object]],
                              rows: Sequence[int] | None = None, cols: Sequence[int] | None = None) -> list[str]:
    """Body of a LOCALLY-IDENTIFIABLE certificate: ``rank``, ``points``, ``point`` lines and the
    optional minor hint (``rows`` of the stacked Jacobian, ``cols`` parameter indices, ``det``)."""
    from .qq import to_q

    R = net.num_parameters - net.num_hidden
    lines = [f"rank {R}", f"points {len(points)}"]
    lines += ["point " + " ".join(q_str(to_q(v)) for v in p) for p in points]
    if rows is not None and cols is not None:
        from flint import fmpq_mat

        m = net.output_dim
        jac = [net.parameter_jacobian(p).tolist() for p in points]
        M = fmpq_mat([[jac[r // m][r % m][c] for c in cols] for r in rows])
        lines += ["rows " + " ".join(str(r) for r in rows), "cols " + " ".join(str(c) for c in cols),
                  f"det {q_str(M.det())}"]
    return lines


def not_equivalent_body(f: Network, g: Network, x: Sequence[object]) -> list[str]:
    """Body of a NOT-EQUIVALENT certificate at the witness point ``x``."""
    from .qq import to_q

    x = [to_q(v) for v in x]
    return ["witness " + " ".join(q_str(v) for v in x),
            "value " + " ".join(q_str(v) for v in f.evaluate(x)),
            "other-value " + " ".join(q_str(v) for v in g.evaluate(x))]
