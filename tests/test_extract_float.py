"""Tests of the float64 extraction pipeline (exactnet.extract_float) and the float oracles.

Independent oracle: the victim's exact weights (parameter error after alignment, computed
here from scratch) and exact evaluation; the float pipeline never claims exactness.
"""

from __future__ import annotations

import json
import random
import sys
import textwrap

import numpy as np
import pytest
from flint import fmpq

from exactnet.cli import main as cli_main
from exactnet.errors import UndecidedError
from exactnet.extract import extract
from exactnet.extract_float import extract_float, parameter_error
from exactnet.netio import save_network
from exactnet.network import Network
from exactnet.oracle import CommandOracle, FloatOracle, NumpyNetworkOracle
from exactnet.qq import q_to_float


def dyadic_network(arch, seed):
    rng = random.Random(seed)

    def q():
        p = 0
        while p == 0:
            p = rng.randint(-9, 9)
        return fmpq(p, 2 ** rng.randint(0, 3))

    return Network.from_lists(
        [([[q() for _ in range(arch[l - 1])] for _ in range(arch[l])], [q() for _ in range(arch[l])])
         for l in range(1, len(arch))]
    )


def aligned_error(ext: Network, victim: Network) -> float:
    """Independent re-computation: match neurons by normalised rows (victim's first entry), compare."""
    worst = abs(q_to_float(ext.biases(2)[0]) - q_to_float(victim.biases(2)[0]))
    for w, b, v in zip(victim.weights(1), victim.biases(1), victim.weights(2)[0]):
        rv = [q_to_float(x) for x in list(w) + [b]]
        s = abs(rv[0])
        best = min(
            (max(abs(e / abs(q_to_float(we[0])) - r / s) for e, r in zip([q_to_float(x) for x in list(we) + [be]], rv)),
             abs(q_to_float(ve) * abs(q_to_float(we[0])) - q_to_float(v) * s))
            for we, be, ve in zip(ext.weights(1), ext.biases(1), ext.weights(2)[0]) if we[0]
        )
        worst = max(worst, *best)
    return worst


@pytest.mark.parametrize("arch,seed", [((20, 10, 1), 1), ((40, 16, 1), 2), ((8, 6, 2), 3)])
def test_float_pipeline_precision(arch, seed):
    victim = dyadic_network(arch, seed)
    oracle = NumpyNetworkOracle(victim)
    res = extract_float(oracle, arch, seed=seed)
    assert res.status == "float-approximation"
    assert res.queries == oracle.queries > 0
    assert res.hyperplanes == arch[1]
    err = aligned_error(res.network, victim) if arch[-1] == 1 else None
    pe = parameter_error(res.network, victim)["max_parameter_error"]
    assert pe is not None and pe < 2.0 ** -20
    if err is not None:
        assert abs(err - pe) <= 1e-12 + 1e-6 * pe or err < 2.0 ** -20
    assert res.max_output_error < 2.0 ** -15


def test_float_callable_oracle_batch_and_expanding_refusal():
    victim = dyadic_network((6, 4, 1), 5)
    W = np.array([[q_to_float(v) for v in r] for r in victim.weights(1)])
    b = np.array([q_to_float(v) for v in victim.biases(1)])
    V = np.array([q_to_float(v) for v in victim.weights(2)[0]])
    d = q_to_float(victim.biases(2)[0])
    o = FloatOracle(lambda X: np.maximum(np.asarray(X) @ W.T + b, 0) @ V + d, 6, 1, batch=True)
    res = extract_float(o, (6, 4, 1))
    assert parameter_error(res.network, victim)["max_parameter_error"] < 2.0 ** -20
    with pytest.raises(UndecidedError, match="float"):
        extract(NumpyNetworkOracle(victim), (6, 4, 1))  # the exact pipeline refuses floats
    with pytest.raises(UndecidedError, match="non-expanding"):  # deep: exactnet.extract_deep_float
        extract_float(NumpyNetworkOracle(dyadic_network((4, 3, 4, 1), 1)), (4, 3, 4, 1))


SCRIPT = textwrap.dedent(
    """
    import sys
    W = [[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25]]
    b = [1.0, -0.3, 2.0]
    v = [2.0, -1.0, 1.5]
    for line in sys.stdin:
        x = []
        for s in line.strip().split(","):
            if "/" in s:
                p, q = s.split("/"); x.append(int(p) / int(q))
            else:
                x.append(float(s))
        y = sum(vi * max(sum(a * c for a, c in zip(w, x)) + bi, 0.0) for w, bi, vi in zip(W, b, v)) + 0.2
        print(repr(y)); sys.stdout.flush()
    """
)


def test_command_oracle_in_float_mode(tmp_path):
    path = tmp_path / "fl.py"
    path.write_text(SCRIPT)
    with CommandOracle(f"{sys.executable} {path}", 2, 1, float_mode=True) as o:
        res = extract_float(o, (2, 3, 1), seed=1, sample_points=200)
    assert res.hyperplanes == 3 and res.max_output_error < 1e-6


def test_cli_oracle_float(tmp_path, capsys):
    victim = dyadic_network((20, 10, 1), 1)
    vpath = tmp_path / "v.json"
    save_network(victim, str(vpath))
    code = cli_main(["extract", "--oracle", str(vpath), "--arch", "20,10,1", "--oracle-float", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["status"] == "float-approximation"
    assert out["verification"].startswith("none exact")
    assert out["victim_comparison"]["max_parameter_error"] < 2.0 ** -20
    assert out["precision"]["log2_max_output_error"] < -15
    assert cli_main(["extract", "--oracle", str(vpath), "--arch", "20,10,1", "--oracle-float",
                     "--certificate", str(tmp_path / "c")]) == 2
