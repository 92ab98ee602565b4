"""The dependency graph against hand-computed edges (examples B, C) and a brute-force oracle."""

import itertools
import json
from fractions import Fraction as F

import networkx as nx
import pytest

from exactnet.depgraph import (
    apparent_layers,
    default_box,
    dependency_graph,
    longest_bending_chain,
    to_dot,
    to_graphml,
    to_node_link_json,
)
from exactnet.examples import example
from exactnet.network import Network
from exactnet.qq import q_str, q_to_fraction
from exactnet.randnet import random_network


def _edges(G):
    return {(a, b): (d["bend"], d["witness"]) for a, b, d in G.edges(data=True)}


def test_example_c_hand_computed_edges():
    # theory.md 5: B_(2,1) meets B_(1,2) at p = (-46/735, 187/735); the bend is
    # W2[0,1] * grad z_(1,2) = -1 * (-1/2, 1) = (1/2, -1): the edge directions (1,4) and (1,-3).
    # B_(2,2) bends along B_(1,1) by W2[1,0] * grad z_(1,1) = 1/4 * (1, 1/3) = (1/4, 1/12).
    G = dependency_graph(example("C"))
    e = _edges(G)
    assert e[((1, 1), (2, 0))] == ("1/2,-1", "-46/735,187/735")
    assert e[((1, 0), (2, 1))][0] == "1/4,1/12"
    assert set(e) == {((1, 1), (2, 0)), ((1, 0), (2, 1))}
    assert all(d["visible"] for _, d in G.nodes(data=True))
    assert len(longest_bending_chain(G)) == 2
    assert apparent_layers(G) == {(1, 0): 1, (1, 1): 1, (2, 0): 2, (2, 1): 2}


def test_example_b_has_no_edge():
    # B_(2,1) = {relu(x1 + 2 x2 + 1) = 3/2} lies where z_(1,1) = 3/2 != 0: it never meets B_(1,1).
    G = dependency_graph(example("B"))
    assert G.number_of_edges() == 0
    assert G.nodes[(1, 0)]["visible"] and G.nodes[(2, 0)]["visible"]
    assert len(longest_bending_chain(G)) == 1


def _oracle_edges(net: Network):
    """Brute force for (2, n1, n2, 1) networks with Fractions: every layer-1 sign choice."""
    W1 = [[q_to_fraction(v) for v in r] for r in net.weights(1)]
    b1 = [q_to_fraction(v) for v in net.biases(1)]
    W2 = [[q_to_fraction(v) for v in r] for r in net.weights(2)]
    b2 = [q_to_fraction(v) for v in net.biases(2)]
    v3 = [q_to_fraction(v) for v in net.weights(3)[0]]
    n1, n2 = len(b1), len(b2)
    out = {}
    for i, j in itertools.product(range(n2), range(n1)):
        if W2[i][j] == 0:
            continue
        others = [k for k in range(n1) if k != j]
        for S in itertools.product((0, 1), repeat=n1 - 1):
            on = dict(zip(others, S))
            g = [sum(W2[i][k] * W1[k][t] for k in others if on[k]) for t in range(2)]
            c = b2[i] + sum(W2[i][k] * b1[k] for k in others if on[k])
            a = W1[j]
            det = a[0] * g[1] - a[1] * g[0]
            if det == 0:
                continue
            x = ((-b1[j]) * g[1] - a[1] * (-c)) / det, (a[0] * (-c) - (-b1[j]) * g[0]) / det
            z1 = [W1[k][0] * x[0] + W1[k][1] * x[1] + b1[k] for k in range(n1)]
            if any((z1[k] > 0) != bool(on[k]) or z1[k] == 0 for k in others):
                continue
            h1 = [max(z, 0) for z in z1]
            z2 = [sum(W2[m][k] * h1[k] for k in range(n1)) + b2[m] for m in range(n2)]
            if any(z2[m] == 0 for m in range(n2) if m != i):
                continue
            # visible on both sides of B_(1,j): the jump across B_(2,i) is v3[i] * grad z_(2,i)
            ok = v3[i] != 0 and all(any(g[t] + s * W2[i][j] * a[t] != 0 for t in range(2)) for s in (0, 1))
            if ok:
                bend = ",".join(str(W2[i][j] * a[t]) for t in range(2))
                out[((1, j), (2, i))] = (bend, ",".join(str(t) for t in x))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_random_networks_against_local_formulas(seed):
    net = random_network((2, 3, 3, 1), seed=seed)
    G = dependency_graph(net)
    got = _edges(G)
    want = _oracle_edges(net)
    assert set(got) == set(want)
    for k in got:
        assert got[k][0] == want[k][0]  # the bend vector W_l[i,j] * grad z_(l-1,j)
        # every witness is a point where exactly the two neurons vanish
        q = [F(t) for t in got[k][1].split(",")]
        zs = net.preactivations([str(t) for t in q])
        (a, j), (b, i) = k
        assert zs[a - 1][j] == 0 and zs[b - 1][i] == 0


@pytest.mark.parametrize("seed", range(4))
def test_box_and_sampling_fallback_never_add_an_edge(seed):
    net = random_network((2, 3, 3, 1), seed=100 + seed)
    full = _edges(dependency_graph(net))
    boxed = _edges(dependency_graph(net, box=(-2, 2)))
    assert set(boxed) <= set(full)
    assert all(all(-2 <= F(t) <= 2 for t in w.split(",")) for _, w in boxed.values())
    sampled = set(_edges(dependency_graph(net, use_regions=False, samples=150)))
    assert sampled <= set(full)


def test_deeper_network_witnesses_are_exact():
    net = random_network((2, 3, 3, 2, 1), seed=0)
    G = dependency_graph(net)
    assert {a for (a, _), _ in G.edges()} == {1, 2}  # edges into layer 2 and into layer 3
    for (a, j), (b, i), d in G.edges(data=True):
        assert b == a + 1
        zs = net.preactivations(d["witness"].split(","))
        assert zs[a - 1][j] == 0 and zs[b - 1][i] == 0
        # bend = W_b[i, j] * grad z_(a, j), the gradient taken exactly by finite differences
        # along the coordinate axes on the side where every other neuron keeps its sign
        grad = [q_str(v) for v in _grad_of(net, a, j, d["witness"].split(","))]
        w = net.weights(b)[i][j]
        assert d["bend"] == ",".join(q_str(w * F_to_q(g)) for g in grad)


def F_to_q(s):
    from exactnet.qq import parse_q

    return parse_q(s)


def _grad_of(net, l, j, point):
    from exactnet.qq import parse_q

    from flint import fmpq

    x = [parse_q(t) for t in point]
    eps = fmpq(1, 10**9)
    # z_(l,j) is affine near x on each side of the other zero neuron; use a symmetric difference
    # from points shifted slightly off both hyperplanes (all layers before l are fixed near x).
    base = net.preactivations(x)[l - 1][j]
    out = []
    for t in range(len(x)):
        y = list(x)
        y[t] += eps
        out.append((net.preactivations(y)[l - 1][j] - base) / eps)
    return out


def test_exports_round_trip(tmp_path):
    G = dependency_graph(example("C"))
    data = json.loads(to_node_link_json(G))
    H = nx.node_link_graph(data, edges="links")
    assert H.number_of_edges() == 2 and H.number_of_nodes() == 4
    assert H.edges["n1_2", "n2_1"]["bend"] == "1/2,-1"
    path = tmp_path / "g.graphml"
    path.write_text(to_graphml(G))
    K = nx.read_graphml(path)
    assert K.edges["n1_2", "n2_1"]["witness"] == "-46/735,187/735"
    dot = to_dot(G)
    assert dot.startswith("digraph") and '"n1_2" -> "n2_1"' in dot and dot.count("->") == 2


@pytest.mark.parametrize("seed", range(4))
def test_face_graph_refines_the_neuron_graph(seed):
    from exactnet.depgraph import face_graph

    net = example("C") if seed == 0 else random_network((2, 3, 3, 1), seed=seed)
    Fg = face_graph(net)
    proj = set()
    for a, b, d in Fg.edges(data=True):
        na, nb = Fg.nodes[a]["neuron"], Fg.nodes[b]["neuron"]
        la, ia = (int(t) for t in na.split("."))
        lb, ib = (int(t) for t in nb.split("."))
        zs = net.preactivations(d["vertex"].split(","))
        assert zs[la - 1][ia - 1] == 0 and zs[lb - 1][ib - 1] == 0
        proj.add(((la, ia - 1), (lb, ib - 1)))
    assert set(dependency_graph(net).edges()) <= proj
