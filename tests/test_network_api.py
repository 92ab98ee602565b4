"""The Python API of :class:`exactnet.network.Network` at its border: exact entries only (floats
refused at construction, every constructor normalises to tuples of fmpq), pickling and copying with
caches dropped, layer numbers 1..L, checked activation patterns and points, and precise errors."""

from __future__ import annotations

import copy
import pickle
from fractions import Fraction

import pytest
from flint import fmpq, fmpz
from hypothesis import given, settings
from hypothesis import strategies as st

import exactnet
from exactnet import errors
from exactnet.errors import ExactnetError, FormatError, ShapeError, ValueRangeError
from exactnet.netjson import dumps_network, loads_network
from exactnet.network import Layer, Network
from exactnet.qq import q_str
from exactnet.strategies import architectures, networks, points

SMALL = architectures(max_input=2, max_hidden_layers=2, max_width=3, max_output=2)
FAST = settings(max_examples=25, deadline=None)


def _net_and_point():
    return networks(arch=SMALL).flatmap(lambda n: st.tuples(st.just(n), points(n.input_dim)))


def _rows(net: Network, conv):
    return [([[conv(v) for v in row] for row in layer.weights], [conv(v) for v in layer.biases])
            for layer in net.layers]


# ------------------------------------------------------------------ 1. exact entries only
FLOAT_BUILDS = {
    "Layer weights": lambda: Layer(((0.1,), (0.2,)), (0, 0)),
    "Layer biases": lambda: Layer(((1,), (2,)), (0.3, 0)),
    "Network of float layers": lambda: Network([Layer(((0.1,), (0.2,)), (0.3, 0.6)), Layer(((1, 1),), (0,))]),
    "from_lists": lambda: Network.from_lists([([[1, 0.5]], [0])]),
    "unflatten": lambda: Network.unflatten((1, 1), [0.5, 1]),
    "replace_layer": lambda: Network.from_lists([([[1]], [0]), ([[2]], [1])]).replace_layer(2, [[0.25]], [0]),
}


@pytest.mark.parametrize("build", FLOAT_BUILDS.values(), ids=FLOAT_BUILDS.keys())
def test_floats_are_refused_at_construction(build):
    with pytest.raises(FormatError, match="float"):
        build()


@pytest.mark.parametrize("bad", [None, object(), [1], b"1", True])
def test_non_numbers_in_a_layer_raise_format_error(bad):
    with pytest.raises(FormatError):
        Layer(((bad,),), (0,))


def test_ragged_rows_and_non_layers_are_refused():
    with pytest.raises(ShapeError, match="ragged"):
        Layer(((1, 2), (3,)), (0, 0))
    with pytest.raises(FormatError, match="not a Layer"):
        Network([([[1]], [0])])
    with pytest.raises(FormatError):
        Layer("12", (0,))


@FAST
@given(networks(arch=SMALL), st.sampled_from(["fraction", "str", "list-int"]))
def test_every_exact_spelling_builds_the_same_network(net, spelling):
    """Fractions, strings, lists instead of tuples: the same entries give an equal network with an
    equal hash through every constructor, and its entries are fmpq."""
    conv = {"fraction": lambda v: Fraction(int(v.p), int(v.q)), "str": q_str, "list-int": lambda v: v}[spelling]
    rows = _rows(net, conv)
    if spelling == "list-int":  # integer entries as int / fmpz where they are integral
        rows = [([[int(v.p) if v.q == 1 else v for v in r] for r in w], [fmpz(int(v.p)) if v.q == 1 else v for v in b])
                for w, b in rows]
    builds = [
        Network([Layer(w, b) for w, b in rows]),
        Network.from_lists(rows),
        Network.unflatten(net.architecture, [conv(v) for v in net.flatten()]),
    ]
    for other in builds:
        assert other == net and hash(other) == hash(net)
        assert all(type(v) is fmpq for v in other.flatten())
        assert all(type(r) is tuple for layer in other.layers for r in layer.weights)


@FAST
@given(_net_and_point())
def test_fraction_entries_evaluate_exactly(case):
    net, x = case
    other = Network([Layer(w, b) for w, b in _rows(net, lambda v: Fraction(int(v.p), int(v.q)))])
    assert other.evaluate(x) == net.evaluate(x)
    assert other.evaluate_batch([x]) == [net.evaluate(x)]


def test_lists_and_tuples_compare_equal():
    a = Network([Layer([[1]], [0]), Layer([[2]], [1])])
    b = Network.from_lists([([[1]], [0]), ([[2]], [1])])
    assert a == b and hash(a) == hash(b)


# ------------------------------------------------------------------ 2. pickle and copy
@FAST
@given(_net_and_point(), st.booleans())
def test_pickle_and_deepcopy_round_trip_before_and_after_batch_evaluation(case, batch_first):
    net, x = case
    net = Network(net.layers, name="n", metadata={"k": [1, "a"]})
    if batch_first:
        net.evaluate_batch([x])  # builds the cached cleared network
    for other in (pickle.loads(pickle.dumps(net)), copy.deepcopy(net), copy.copy(net)):
        assert other == net and hash(other) == hash(net)
        assert (other.name, other.metadata) == (net.name, net.metadata)
        assert other.evaluate_batch([x]) == net.evaluate_batch([x]) == [net.evaluate(x)]


# ------------------------------------------------------------------ 3. indices, patterns, points
NET = Network.from_lists([([[1, 0], [0, 1], [1, 1]], [0, 0, -1]), ([[1, 2, 3]], [5])])  # (2, 3, 1)


@pytest.mark.parametrize("l", [0, -1, 3, 10])
@pytest.mark.parametrize("method", ["weights", "biases", "weight_matrix"])
def test_layer_numbers_outside_1_to_L_are_refused(method, l):
    with pytest.raises(ValueRangeError, match=r"1\.\.2"):
        getattr(NET, method)(l)


@pytest.mark.parametrize("l", [0, -1, 3])
def test_replace_layer_outside_1_to_L_is_refused(l):
    with pytest.raises(ValueRangeError):
        NET.replace_layer(l, [[1, 1, 1]], [0])


@pytest.mark.parametrize("l", [1.0, "1", True, None])
def test_layer_numbers_must_be_integers(l):
    with pytest.raises(FormatError):
        NET.weights(l)


def test_layer_numbers_1_to_L_give_the_layers():
    for l, layer in enumerate(NET.layers, start=1):
        assert NET.weights(l) == layer.weights and NET.biases(l) == layer.biases
        assert NET.weight_matrix(l) == layer.matrix()
    assert NET.replace_layer(2, [[0, 0, 1]], ["1/2"]).weights(2) == ((0, 0, 1),)


@pytest.mark.parametrize("args", [(0, 0, 0), (3, 0, 0), (-1, 0, 0), (1, 3, 0), (1, -1, 0), (1, 0, 2),
                                  (1, 0, -1), (2, 1, None), (2, 0, 3)])
def test_parameter_index_out_of_range(args):
    with pytest.raises(ValueRangeError):
        NET.parameter_index(*args)


@FAST
@given(networks(arch=SMALL))
def test_parameter_index_addresses_flatten(net):
    flat = net.flatten()
    seen = []
    for l in range(1, net.depth + 1):
        for i, row in enumerate(net.weights(l)):
            for j, w in enumerate(row):
                seen.append(net.parameter_index(l, i, j))
                assert flat[seen[-1]] == w
            seen.append(net.parameter_index(l, i, None))
            assert flat[seen[-1]] == net.biases(l)[i]
    assert sorted(seen) == list(range(net.num_parameters)) == list(range(len(flat)))


@pytest.mark.parametrize("pattern,err", [
    (((1,),), ShapeError),            # too few bits
    (((1, 1, 1, 1),), ShapeError),    # too many bits
    ((), ShapeError),                 # too few layers
    (((1, 1, 1), (1,)), ShapeError),  # the output layer has no pattern
    (((-1, -1, -1),), ValueRangeError),
    (((2, 0, 1),), ValueRangeError),
    (((0.5, 0, 1),), FormatError),
    ((("1", 0, 1),), FormatError),
    ("1", FormatError),
    (None, FormatError),
])
def test_bad_activation_patterns_are_refused(pattern, err):
    with pytest.raises(err):
        NET.local_affine(pattern)


@FAST
@given(_net_and_point())
def test_local_affine_of_the_pattern_at_x_gives_f_x(case):
    """The affine piece of the pattern at ``x`` agrees with ``f`` at ``x``; bools are bits."""
    net, x = case
    pat = net.pattern(x)
    A, c = net.local_affine(pat)
    assert [sum((A[o, j] * x[j] for j in range(net.input_dim)), c[o]) for o in range(net.output_dim)] == net.evaluate(x)
    assert net.local_affine([[bool(b) for b in layer] for layer in pat]) == (A, c)


@pytest.mark.parametrize("x", ["12", b"12", None, 3, fmpq(1)])
@pytest.mark.parametrize("method", ["evaluate", "pattern", "gradient", "parameter_jacobian"])
def test_a_point_must_be_a_sequence(method, x):
    with pytest.raises(FormatError, match="point"):
        getattr(NET, method)(x)


def test_point_entries_are_exact():
    with pytest.raises(FormatError, match="coordinate 2"):
        NET.evaluate([1, 0.5])
    with pytest.raises(FormatError):
        NET.evaluate_batch([[1, 2], "12"])
    for method in ("evaluate_batch", "preactivations_batch", "evaluate_batch_reference"):
        with pytest.raises(FormatError, match="points"):
            getattr(NET, method)(None)
    with pytest.raises(ShapeError):
        NET.evaluate([1, 2, 3])


# ------------------------------------------------------------------ 4. unflatten, from_lists
@FAST
@given(networks(arch=SMALL))
def test_unflatten_inverts_flatten_from_any_iterable(net):
    assert Network.unflatten(net.architecture, net.flatten()) == net
    assert Network.unflatten(list(net.architecture), iter(net.flatten())) == net
    assert Network.unflatten(net.architecture, (v for v in net.flatten())) == net


@pytest.mark.parametrize("arch,err", [
    ("x", FormatError), ((1.7, 1, 1), FormatError), (("1", 1), FormatError), ((True, 1), FormatError),
    (None, FormatError), ((0, 1), ValueRangeError), ((1, -1), ValueRangeError), ((1,), ShapeError),
])
def test_unflatten_refuses_bad_architectures(arch, err):
    with pytest.raises(err):
        Network.unflatten(arch, [1, 2, 3, 4])


def test_unflatten_refuses_bad_parameters():
    with pytest.raises(ShapeError):
        Network.unflatten((1, 1), [1, 2, 3])
    with pytest.raises(FormatError):
        Network.unflatten((1, 1), 5)
    with pytest.raises(FormatError):
        Network.unflatten((1, 1), "12")


@pytest.mark.parametrize("layers", [[([[1]],)], [([[1]], [0], [0])], [5], ["ab"], 7, [{"weights": [[1]], "biases": [0]}]])
def test_from_lists_items_must_be_pairs(layers):
    with pytest.raises(FormatError):
        Network.from_lists(layers)


def test_from_lists_names_the_layer_of_a_bad_entry():
    with pytest.raises(FormatError, match=r"layer 2: weights row 1, entry 3"):
        Network.from_lists([([[1]], [0]), ([[1, 2, 0.5]], [0])])


# ------------------------------------------------------------------ 5. name and metadata
@pytest.mark.parametrize("name", [5, b"n", ["n"]])
def test_non_string_names_are_refused(name):
    with pytest.raises(FormatError, match="name"):
        Network(NET.layers, name=name)


@pytest.mark.parametrize("meta,err", [
    ({"a": fmpq(1, 2)}, FormatError), ({"a": {1: 2}}, FormatError), ({1: "a"}, FormatError),
    ({"a": [object()]}, FormatError), ({"a": float("nan")}, ValueRangeError), ([("a", 1)], FormatError),
])
def test_metadata_that_a_file_cannot_hold_is_refused(meta, err):
    with pytest.raises(err):
        Network(NET.layers, metadata=meta)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=5),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3),
    max_leaves=8,
)


@FAST
@given(networks(arch=SMALL), st.text(min_size=1, max_size=8), st.dictionaries(st.text(max_size=4), JSON, max_size=3))
def test_accepted_name_and_metadata_survive_the_file_format(net, name, meta):
    net = Network(net.layers, name=name, metadata=meta)
    back = loads_network(dumps_network(net))
    assert back == net and back.name == name and back.metadata == meta


# ------------------------------------------------------------------ 6. the package namespace
def test_every_exported_name_exists_and_every_error_is_exported():
    missing = [n for n in exactnet.__all__ if not hasattr(exactnet, n)]
    assert missing == []
    for n in errors.__all__:
        assert n in exactnet.__all__ and getattr(exactnet, n) is getattr(errors, n)
        assert issubclass(getattr(errors, n), ExactnetError)
    assert "FileAccessError" in exactnet.__all__


def test_metadata_changed_after_construction_to_non_json_is_one_format_error():
    """The constructor checks metadata; a later change (the dict is the caller's) must still fail
    cleanly when the network is written, not with json's TypeError or a file holding NaN."""
    from flint import fmpq

    from exactnet.errors import FormatError
    from exactnet.netjson import dumps_network

    net = Network.from_lists([([[1]], [0])], metadata={"note": "ok"})
    net.metadata["bad"] = fmpq(1, 3)
    with pytest.raises(FormatError, match="network metadata cannot be written as JSON"):
        dumps_network(net)
    net.metadata["bad"] = float("nan")
    with pytest.raises(FormatError, match="network metadata cannot be written as JSON"):
        dumps_network(net)
