"""NumPy .npz import (named and arr_0/arr_1 layouts, float modes, bad input) and `exactnet convert`."""

import json
import os
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq
from hypothesis import given
from hypothesis import strategies as st

from exactnet.cli import main
from exactnet.convert_numpy import array_to_q, load_npz
from exactnet.errors import ExactnetError, FormatError, ShapeError, ValueRangeError
from exactnet.netio import load_network
from exactnet.network import Network
from exactnet.strategies import architectures


@st.composite
def dyadic_networks(draw, max_exp=8, max_num=200):
    """Networks whose weights are p / 2^k: exactly representable as float64 (and float32 here)."""
    arch = draw(architectures(max_input=3, max_width=3, max_output=2))

    def q():
        return fmpq(draw(st.integers(-max_num, max_num)), 2 ** draw(st.integers(0, max_exp)))

    layers = []
    for l in range(1, len(arch)):
        layers.append(([[q() for _ in range(arch[l - 1])] for _ in range(arch[l])], [q() for _ in range(arch[l])]))
    return Network.from_lists(layers)


def to_float_arrays(net, dtype=np.float64):
    out = {}
    for l, layer in enumerate(net.layers, start=1):
        out[f"W{l}"] = np.array([[int(v.p) / int(v.q) for v in r] for r in layer.weights], dtype=dtype)
        out[f"b{l}"] = np.array([int(v.p) / int(v.q) for v in layer.biases], dtype=dtype)
    return out


def small_net():
    return Network.from_lists([([[1, 2], [3, 4], [5, 6]], [0, 1, -2]), ([[1, -1, 2]], [7])])


# ------------------------------------------------------------------ named arrays
def test_integer_arrays_need_no_float_mode(tmp_path):
    p = tmp_path / "n.npz"
    np.savez(p, W1=np.array([[1, 2], [3, 4], [5, 6]]), b1=np.array([0, 1, -2]),
             W2=np.array([[1, -1, 2]], dtype=np.int8), b2=np.array([7], dtype=np.uint16))
    net = load_npz(p)
    assert net == small_net()
    assert net.metadata["source"]["layout"].endswith("rows")


def test_float_modes_on_point_one(tmp_path):
    p = tmp_path / "f.npz"
    np.savez(p, W1=np.array([[0.1]]), b1=np.array([0.5]))
    assert load_npz(p, "exact").weights(1)[0][0] == fmpq(3602879701896397, 36028797018963968)
    assert load_npz(p, "decimal").weights(1)[0][0] == fmpq(1, 10)
    assert load_npz(p, "decimal").metadata["source"]["float_mode"] == "decimal"


def test_float32_decimal_uses_float32_shortest_repr(tmp_path):
    p = tmp_path / "f32.npz"
    np.savez(p, W1=np.array([[0.1]], dtype=np.float32), b1=np.array([0.25], dtype=np.float32))
    assert load_npz(p, "decimal").weights(1)[0][0] == fmpq(1, 10)
    ex = load_npz(p, "exact").weights(1)[0][0]
    f = Fraction(float(np.float32(0.1)))
    assert ex == fmpq(f.numerator, f.denominator) and ex.q == 2 ** 27


def test_float_arrays_without_mode_say_how(tmp_path):
    p = tmp_path / "f.npz"
    np.savez(p, W1=np.array([[0.5]]), b1=np.array([1.0]))
    with pytest.raises(FormatError, match="--float-mode"):
        load_npz(p)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_name_the_array_and_index(tmp_path, bad):
    p = tmp_path / "bad.npz"
    W2 = np.array([[1.0, 2.0, 3.0]])
    W2[0, 2] = bad
    np.savez(p, W1=np.ones((3, 2)), b1=np.zeros(3), W2=W2, b2=np.zeros(1))
    with pytest.raises(ValueRangeError, match=r"W2 at index \[0, 2\]"):
        load_npz(p, "exact")


@pytest.mark.parametrize(
    "arrays,match",
    [
        ({"W1": np.ones((3, 2)), "b1": np.zeros(3), "W2": np.ones((1, 4)), "b2": np.zeros(1)}, "do not chain"),
        ({"W1": np.ones((3, 2)), "b1": np.zeros(4)}, "entries"),
        ({"W1": np.ones((3, 2)), "b1": np.zeros(3), "W2": np.ones((1, 3))}, "b2 is missing"),
        ({"W1": np.ones((3, 2)), "b1": np.zeros(3), "W3": np.ones((1, 3)), "b3": np.zeros(1)}, "gaps"),
        ({"W1": np.ones((3, 2, 1)), "b1": np.zeros(3)}, "matrix"),
        ({"W1": np.ones((0, 2)), "b1": np.zeros(0)}, "empty"),
    ],
)
def test_shape_errors(tmp_path, arrays, match):
    p = tmp_path / "s.npz"
    np.savez(p, **arrays)
    with pytest.raises(ShapeError, match=match):
        load_npz(p, "exact")


def test_transposed_named_arrays_are_detected(tmp_path):
    # x @ W + b convention (W1 is n0 x n1): only the transposed reading chains
    p = tmp_path / "t.npz"
    np.savez(p, W1=np.array([[1, 3, 5], [2, 4, 6]]), b1=np.array([0, 1, -2]), W2=np.array([[1], [-1], [2]]),
             b2=np.array([7]))
    net = load_npz(p)
    assert net == small_net() and "columns" in net.metadata["source"]["layout"]


def test_no_network_and_zero_layers(tmp_path):
    p = tmp_path / "e.npz"
    np.savez(p, something=np.ones(3))
    with pytest.raises(FormatError, match="no network found"):
        load_npz(p)
    q = tmp_path / "empty.npz"
    np.savez(q)
    with pytest.raises(FormatError, match="no network found"):
        load_npz(q)


def test_not_an_npz_and_missing_file(tmp_path):
    p = tmp_path / "junk.npz"
    p.write_bytes(b"this is not a zip file")
    with pytest.raises(FormatError):
        load_npz(p)
    with pytest.raises(ExactnetError, match="not found"):
        load_npz(tmp_path / "nope.npz")


def test_bool_and_complex_arrays_refused():
    with pytest.raises(FormatError, match="boolean"):
        array_to_q(np.array([True]), None, "x")
    with pytest.raises(FormatError, match="complex"):
        array_to_q(np.array([1j]), "exact", "x")


# ----------------------------------------------------------- arr_0 / arr_1 lists
def _object(arrs):
    out = np.empty(len(arrs), dtype=object)
    for i, a in enumerate(arrs):
        out[i] = a
    return out


def test_arr_lists_rows_layout_with_column_biases(tmp_path):
    # AI-Lab-Y/NN_cryptanalytic_extraction: ws[l] is n_l x n_(l-1), biases are n_l x 1
    p = tmp_path / "ai.npz"
    ws = [np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.array([[1.0, -1.0, 2.0]])]
    bs = [np.array([[0.0], [1.0], [-2.0]]), np.array([[7.0]])]
    np.savez(p, _object(ws), _object(bs))
    net = load_npz(p, "exact")  # restricted unpickler: arrays only, no allow_pickle needed
    assert net == small_net()
    assert load_npz(p, "exact", allow_pickle=True) == net


def test_arr_lists_carlini_layout_is_transposed(tmp_path):
    # Carlini et al.: x = x @ A[l] + B[l], A[l] is n_(l-1) x n_l
    p = tmp_path / "carlini.npz"
    A = [np.array([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), np.array([[1.0], [-1.0], [2.0]])]
    B = [np.array([0.0, 1.0, -2.0]), np.array([7.0])]
    np.savez(p, _object(A), _object(B))
    net = load_npz(p, "decimal", allow_pickle=True)
    assert net == small_net()
    assert "transposed" in net.metadata["source"]["layout"]
    # and it computes what Carlini's run() computes
    x = np.array([0.5, -0.25])
    h = np.maximum(x @ A[0] + B[0], 0)
    y = h @ A[1] + B[1]
    assert net.evaluate([fmpq(1, 2), fmpq(-1, 4)]) == [fmpq(*Fraction(float(y[0])).as_integer_ratio())]


def test_square_arr_lists_are_ambiguous_unless_told(tmp_path):
    p = tmp_path / "sq.npz"
    A = [np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])]
    B = [np.array([0, 0]), np.array([1, 2])]
    np.savez(p, _object(A), _object(B))
    with pytest.raises(ShapeError, match="ambiguous"):
        load_npz(p, allow_pickle=True)
    rows = load_npz(p, allow_pickle=True, layout="rows")
    cols = load_npz(p, allow_pickle=True, layout="columns")
    assert rows.weights(1) == ((1, 2), (3, 4))
    assert cols.weights(1) == ((1, 3), (2, 4))


def test_stacked_numeric_arr_lists_need_no_pickle(tmp_path):
    # when every layer has the same shape np.savez stacks the list into one numeric array
    p = tmp_path / "stack.npz"
    np.savez(p, np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]), np.array([[0, 0], [1, 2]]))
    net = load_npz(p, layout="rows")
    assert net.architecture == (2, 2, 2) and net.biases(2) == (1, 2)


def test_npy_pair_from_np_save(tmp_path):
    p = tmp_path / "model.npy"
    A = [np.array([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), np.array([[1.0], [-1.0], [2.0]])]
    B = [np.array([0.0, 1.0, -2.0]), np.array([7.0])]
    pair = np.empty((2, 2), dtype=object)
    for l in range(2):
        pair[0, l], pair[1, l] = A[l], B[l]
    np.save(p, pair, allow_pickle=True)
    assert load_npz(p, "exact") == small_net()
    assert load_npz(p, "exact", allow_pickle=True) == small_net()


class _Sneaky:
    """Unpickling this calls os.getcwd (harmless here; stands for any code in a hostile file)."""

    def __reduce__(self):
        return (os.getcwd, ())


def test_object_arrays_with_other_globals_are_refused_unless_allowed(tmp_path):
    p = tmp_path / "sneaky.npz"
    np.savez(p, _object([np.ones((1, 1)), _Sneaky()]), _object([np.zeros(1), np.zeros(1)]))
    with pytest.raises(FormatError, match=r"getcwd is not allowed.*allow_pickle"):
        load_npz(p, "exact")
    with pytest.raises(FormatError, match="str, expected an array"):  # full pickle ran getcwd: a str
        load_npz(p, "exact", allow_pickle=True)


def test_mismatched_arr_list_lengths(tmp_path):
    p = tmp_path / "mm.npz"
    np.savez(p, _object([np.ones((2, 2)), np.ones((1, 2))]), _object([np.zeros(2)]))
    with pytest.raises(ShapeError, match="2 weight matrices but 1 bias"):
        load_npz(p, "exact", allow_pickle=True)


# ------------------------------------------------------------------- properties
@given(dyadic_networks())
def test_round_trip_exact_mode_float64(tmp_path_factory, net):
    p = tmp_path_factory.mktemp("rt") / "n.npz"
    np.savez(p, **to_float_arrays(net))
    assert load_npz(p, "exact") == net


@given(dyadic_networks(max_exp=4, max_num=100))
def test_round_trip_decimal_mode_short_dyadics(tmp_path_factory, net):
    p = tmp_path_factory.mktemp("rt") / "n.npz"
    np.savez(p, **to_float_arrays(net, np.float32))
    assert load_npz(p, "decimal") == net


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=6))
def test_float_modes_match_fraction_oracle(xs):
    a = np.array(xs, dtype=np.float64)
    ex = array_to_q(a, "exact", "a")
    de = array_to_q(a, "decimal", "a")
    for x, e, d in zip(xs, ex, de):
        f = Fraction(x)  # the float's binary value
        g = Fraction(repr(x))  # its shortest decimal
        assert (e.p, e.q) == (f.numerator, f.denominator)
        assert (d.p, d.q) == (g.numerator, g.denominator)


# ------------------------------------------------------------------------ CLI
def test_cli_convert_npz(tmp_path, capsys):
    src = tmp_path / "f.npz"
    np.savez(src, W1=np.array([[0.1, 2.0]]), b1=np.array([0.5]))
    out = tmp_path / "out.json"
    assert main(["convert", str(src), "-o", str(out)]) == 2
    assert "--float-mode" in capsys.readouterr().err
    assert not out.exists()
    assert main(["convert", str(src), "-o", str(out), "--float-mode", "decimal", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["architecture"] == [2, 1] and info["float_mode"] == "decimal"
    net = load_network(out)
    assert net.weights(1)[0] == (fmpq(1, 10), fmpq(2)) and net.metadata["source"]["float_mode"] == "decimal"


def test_cli_convert_bad_inputs_write_nothing(tmp_path, capsys):
    out = tmp_path / "out.json"
    bad = tmp_path / "nan.npz"
    np.savez(bad, W1=np.array([[np.nan]]), b1=np.array([0.0]))
    assert main(["convert", str(bad), "-o", str(out), "--float-mode", "exact"]) == 2
    assert main(["convert", str(tmp_path / "missing.npz"), "-o", str(out)]) == 2
    assert main(["convert", str(bad), "-o", str(tmp_path / "out.txt"), "--float-mode", "exact"]) == 2
    err = capsys.readouterr().err
    assert err.count("exactnet: error:") == 3 and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob("*.tmp"))


def test_cli_convert_pickle_and_layout_flags(tmp_path, capsys):
    src = tmp_path / "sq.npz"
    np.savez(src, _object([np.array([[1, 2], [3, 4]])]), _object([np.array([0, 0])]))
    out = tmp_path / "o.json"
    assert main(["convert", str(src), "-o", str(out)]) == 2  # square: ambiguous
    assert main(["convert", str(src), "-o", str(out), "--allow-pickle"]) == 2
    assert main(["convert", str(src), "-o", str(out), "--allow-pickle", "--npz-layout", "columns"]) == 0
    assert load_network(out).weights(1) == ((1, 3), (2, 4))
