"""Producer of the body of a ``REGIONS`` certificate (checked by ``proofs/kind_regions.py``).

Body lines (spec and proof: ``proofs/lemmas/regions.md``); neurons are ``l i`` with the layer
``l`` from 1 and the index ``i`` from 0, hidden neurons in layer order; ``N`` hidden neurons::

    domain all | domain box LO HI
    cells K
    cell I b_1 ... b_N                        # pattern of cell I (I = 0..K-1)
    point I x_1 ... x_n0                      # interior point: strict signs
    forced I l i MU [n l' i' LAM | b c s LAM]...   # s*g_(l,i) = MU + sum LAM * h on the node
    facet I l i J w_1 ... w_n0                # w: relative interior of the facet, J across it
    facet-box I c s w_1 ... w_n0              # a box side (s = 0: x_c >= LO, 1: x_c <= HI)

A ``forced`` line is present exactly for the neurons where the subdivision did not split the
node (the sibling pattern prefix is absent); its terms are nonnegative multipliers of earlier
neurons' signed pre-activations (``n``) or box sides (``b``).
"""

from __future__ import annotations

from .errors import CertificateError
from .lp import verify_multipliers
from .qq import q_str
from .regions import forced_certificate

__all__ = ["regions_certificate_body", "regions_certificate"]


def _local_rows(net, pattern):
    """Per hidden neuron (l, i): (normal, offset) of its pre-activation with ``pattern`` frozen."""
    from flint import fmpq, fmpq_mat

    n = net.input_dim
    A = [[fmpq(int(i == j)) for j in range(n)] + [fmpq(0)] for i in range(n)]
    out = {}
    for l in range(1, net.depth):
        Z = (net.weight_matrix(l) * fmpq_mat(A)).tolist()
        b = net.biases(l)
        rows = [(tuple(r[:-1]), r[-1] + bi) for r, bi in zip(Z, b)]
        for i, r in enumerate(rows):
            out[(l, i)] = r
        A = [list(r[0]) + [r[1]] if on else [fmpq(0)] * (n + 1) for r, on in zip(rows, pattern[l - 1])]
    return out


def regions_certificate_body(rc) -> list[str]:
    """Body lines for the region complex ``rc`` (of ``rc.network``, the sliced one if sliced)."""
    rc.breakpoints()  # fills the neighbours
    net = rc.network
    n = net.input_dim
    lines = ["domain all" if rc.box is None else f"domain box {q_str(rc.box[0])} {q_str(rc.box[1])}"]
    lines.append(f"cells {len(rc.cells)}")
    for I, c in enumerate(rc.cells):
        bits = [b for layer in c.pattern for b in layer]
        lines.append(f"cell {I} " + " ".join(map(str, bits)))
        lines.append(f"point {I} " + " ".join(q_str(x) for x in c.interior_point))
    for I, c in enumerate(rc.cells):
        local = _local_rows(net, c.pattern)

        def signed(tag):
            if tag[0] == "box":
                from flint import fmpq

                _, k, s = tag
                e = [fmpq(0)] * n
                e[k] = fmpq(1) if s == 0 else fmpq(-1)
                return e, (-rc.box[0] if s == 0 else rc.box[1])
            g = local[tag]
            on = c.pattern[tag[0] - 1][tag[1]]
            return (list(g[0]), g[1]) if on else ([-a for a in g[0]], -g[1])

        for tag in sorted(c.forced, key=lambda t: t):
            terms, mu = forced_certificate(c.forced[tag])
            h, hc = signed(tag)
            rows, offs, lams, toks = [], [], [], []
            for t, lam in terms:
                a, o = signed(t)
                rows.append(a)
                offs.append(o)
                lams.append(lam)
                if t[0] == "box":
                    toks.append(f"b {t[1]} {t[2]} {q_str(lam)}")
                else:
                    toks.append(f"n {t[0]} {t[1]} {q_str(lam)}")
            if not verify_multipliers(h, hc, rows, offs, lams, mu) or mu < 0:
                raise CertificateError(f"internal: redundancy multipliers of neuron {tag} in cell {I} do not check")
            lines.append(" ".join([f"forced {I} {tag[0]} {tag[1]} {q_str(mu)}"] + toks))
        for k in c.constraints:
            w = " ".join(q_str(x) for x in k.witness)
            if k.neuron is None:
                lines.append(f"facet-box {I} {k.box_side[0]} {k.box_side[1]} {w}")
            else:
                if k.neighbour is None:
                    raise CertificateError(f"internal: facet of cell {I} without a neighbour")
                lines.append(f"facet {I} {k.neuron[0]} {k.neuron[1]} {k.neighbour} {w}")
    return lines


def regions_certificate(rc) -> str:
    """The whole certificate text (needs ``exactnet.certificate`` from the checker helper)."""
    try:
        from .certificate import write_certificate
    except ImportError as exc:  # pragma: no cover - depends on another module
        raise CertificateError("certificate writer exactnet.certificate is not available") from exc
    return write_certificate("REGIONS", rc.network, regions_certificate_body(rc))
