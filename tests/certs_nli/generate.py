"""Corpus of NOT-LOCALLY-IDENTIFIABLE certificates (run from the repository root:
python tests/certs_nli/generate.py).

Same naming as tests/certs: valid/<name>.cert verify, invalid/<name>__<CODE>.cert are rejected
(exit 1), malformed/<name>__<CODE>.cert malformed (exit 2). Bad files are one targeted edit of
a valid body, re-framed by write_certificate (digests correct, so the intended code fires).
Kept apart from tests/certs until proofs/check.py registers the kind; then these files move
there and ``certificates()`` becomes a section of tests/certs/generate.py.
"""

import os
import sys

sys.path.insert(0, os.getcwd())
from exactnet import certificate  # noqa: E402
from exactnet.continuous_symmetry import KIND, candidates  # noqa: E402
from exactnet.examples import example  # noqa: E402
from exactnet.network import Network  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

NETS = {
    "unused_2_3_1": Network.from_lists([([[1, 2], [-1, 1], [2, -1]], [0, 1, -1]), ([[0, 1, 1]], [0])]),
    "dead_2_3_1": Network.from_lists([([[1, 2], [0, 0], [2, -1]], [0, -1, -1]), ([[1, 2, 1]], [0])]),
    "active_2_3_1": Network.from_lists([([[1, 2], [0, 0], [2, -1]], [0, 2, -1]), ([[1, 2, 1]], [1])]),
    "proportional_2_3_1": Network.from_lists([([[1, 2], [-1, 1], [2, 4]], [3, 1, 6]), ([[1, 1, 1]], [0])]),
    "opposite_2_3_1": Network.from_lists([([[1, -1], [-2, 2], [2, 1]], [1, -2, 0]), ([[2, -1, 1]], [0])]),
    "active_example_d": example("D"),
    "proportional_layer1_2_2_2_1": Network.from_lists([([[1, -1], [3, -3]], [1, 3]), ([[1, 2], [-1, 1]], [0, 1]),
                                                      ([[2, 1]], [0])]),
    "unused_layer1_2_2_2_1": Network.from_lists([([[1, 2], [-1, 1]], [0, 1]), ([[0, 1], [0, 1]], [-1, 0]),
                                                ([[3, 1]], [0])]),
}


def _first(name, mechanism):
    net = NETS[name]
    fam = next(f for f in candidates(net) if f.mechanism == mechanism)
    return net, fam.body_lines()


def _sub(lines, key, new):
    return [new if s.split(" ")[0] == key else s for s in lines]


def _tok(lines, key, pos, value):
    out = []
    for s in lines:
        t = s.split(" ")
        if t[0] == key:
            t[pos] = value
        out.append(" ".join(t))
    return out


def certificates():
    """{relative path: text} of the whole corpus."""
    bodies = {n: _first(n, n.split("_")[0]) for n in NETS}
    out = {}

    def put(folder, name, net, lines):
        out[f"{folder}/{name}.cert"] = certificate.write_certificate(KIND, net, lines)

    for n, (net, lines) in bodies.items():
        put("valid", n, net, lines)
    net, u = bodies["unused_2_3_1"]
    D = net.num_parameters
    col = net.parameter_index(2, 0, 0) + 1  # delta token of W_2[0, 0]: the unused neuron's column
    put("invalid", "unused_column_moves__E_SUPPORT", net, _tok(u, "delta", col, "1"))
    wit = [s for s in u if s.startswith("witness")]
    put("invalid", "same_witness_twice__E_INVARIANT", net, [s for s in u if not s.startswith("witness")] + [wit[0]] * 2)
    put("invalid", "interval_zero__E_INTERVAL", net, _sub(u, "interval", "interval 0"))
    put("invalid", "layer_not_hidden__E_INDEX", net, _sub(u, "mechanism", "mechanism unused 2 0"))
    put("invalid", "neuron_out_of_range__E_INDEX", net, _sub(u, "mechanism", "mechanism unused 1 3"))
    put("malformed", "unknown_mechanism__E_MECHANISM", net, _sub(u, "mechanism", "mechanism twist 1 0"))
    put("malformed", "unknown_invariant__E_METHOD", net, _sub(u, "invariant", "invariant rank"))
    put("malformed", "missing_witness__E_SYNTAX", net, u[:-1])
    put("malformed", "short_delta__E_SHAPE", net, _sub(u, "delta", "delta" + " 0" * (D - 1)))
    put("malformed", "interval_not_canonical__E_NUMBER", net, _sub(u, "interval", "interval 2/2"))
    net, d = bodies["dead_2_3_1"]
    b1 = net.parameter_index(1, 1, None) + 1
    put("invalid", "dead_bias_up__E_CONDITION", net, _sub(_tok(d, "delta", b1, "1"), "interval", "interval 2"))
    net, a = bodies["active_2_3_1"]
    put("invalid", "active_no_compensation__E_SUPPORT", net, _tok(a, "delta", net.parameter_index(2, 0, None) + 1, "0"))
    net, o = bodies["opposite_2_3_1"]
    put("invalid", "opposite_second_bias_wrong__E_CONDITION", net, _tok(o, "delta", net.parameter_index(1, 1, None) + 1, "-1"))
    net, p = bodies["proportional_2_3_1"]
    put("invalid", "proportional_not_kept__E_SUPPORT", net, _tok(p, "delta", net.parameter_index(2, 0, 2) + 1, "1"))
    net, v = bodies["unused_layer1_2_2_2_1"]
    put("invalid", "contribution_not_last_layer__E_DEPTH", net,
        [s for s in _sub(v, "invariant", "invariant contribution") if s != [w for w in v if w.startswith("witness")][1]])
    net, r = bodies["proportional_layer1_2_2_2_1"]
    assert "invariant ratio 0" in r
    put("invalid", "ratio_neuron_out_of_range__E_INDEX", net, _sub(r, "invariant", "invariant ratio 2"))
    # second witness y = (1, 2): z_(2,0)(y) = 1 relu(0) + 2 relu(0) + 0 = 0, the quotient is undefined
    put("invalid", "ratio_denominator_zero__E_INVARIANT", net, r[:-1] + ["witness 1 2"])
    put("malformed", "neuron_for_preactivation__E_SYNTAX", net, _sub(r, "invariant", "invariant preactivation 0"))
    return out


def main():
    chk = certificate.load_checker()
    if KIND not in certificate.KINDS:  # emulate the framework registration while it is pending
        certificate.KINDS += (KIND,)
        chk.KINDS += (KIND,)
    for rel, text in certificates().items():
        os.makedirs(os.path.join(HERE, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(HERE, rel), "w", newline="") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
