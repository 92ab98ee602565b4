"""Hypothesis strategies for exactnet, for the project's tests and for users' own.

>>> from hypothesis import given
>>> from exactnet.strategies import networks
>>> @given(networks(arch=(2, 3, 1)))
... def test_something(net):
...     assert net.architecture == (2, 3, 1)

All strategies shrink towards small numbers: rationals towards 0 and small
denominators, architectures towards narrow and shallow ones.
"""

from __future__ import annotations

from typing import Sequence

from flint import fmpq
from hypothesis import strategies as st

from .network import Network

__all__ = ["rationals", "architectures", "networks", "points"]


def rationals(max_num: int = 9, max_den: int = 5, nonzero: bool = False) -> st.SearchStrategy[fmpq]:
    """A rational ``p/q`` with ``|p| <= max_num`` and ``1 <= q <= max_den`` (``p != 0`` when ``nonzero``).

    Built from two integer draws without ``@composite`` or filters (cheap enough for networks of
    hundreds of parameters under Hypothesis's default health checks)."""
    if nonzero:
        num = st.one_of(st.integers(1, max_num), st.integers(-max_num, -1))  # shrinks towards 1
    else:
        num = st.integers(min_value=-max_num, max_value=max_num)
    return st.builds(fmpq, num, st.integers(min_value=1, max_value=max_den))


def architectures(
    min_input: int = 1,
    max_input: int = 3,
    min_hidden_layers: int = 1,
    max_hidden_layers: int = 2,
    min_width: int = 1,
    max_width: int = 3,
    max_output: int = 1,
) -> st.SearchStrategy[tuple[int, ...]]:
    """Architectures ``(n0, n1, ..., nL)`` within the given bounds."""

    @st.composite
    def _arch(draw):
        n0 = draw(st.integers(min_input, max_input))
        depth = draw(st.integers(min_hidden_layers, max_hidden_layers))
        hidden = [draw(st.integers(min_width, max_width)) for _ in range(depth)]
        out = draw(st.integers(1, max_output))
        return (n0, *hidden, out)

    return _arch()


@st.composite
def networks(
    draw,
    arch: Sequence[int] | st.SearchStrategy | None = None,
    max_num: int = 9,
    max_den: int = 5,
) -> Network:
    """Networks of a fixed architecture (or one drawn from a strategy) with small rational weights."""
    if arch is None:
        arch = architectures()
    a = tuple(draw(arch)) if isinstance(arch, st.SearchStrategy) else tuple(arch)
    q = rationals(max_num, max_den)
    layers = []
    for l in range(1, len(a)):  # one list draw per layer: (n_l x n_(l-1)) weights, then n_l biases
        n_in, n_out = a[l - 1], a[l]
        v = draw(st.lists(q, min_size=(n_in + 1) * n_out, max_size=(n_in + 1) * n_out))
        layers.append(([v[i * n_in:(i + 1) * n_in] for i in range(n_out)], v[n_in * n_out:]))
    return Network.from_lists(layers)


def points(dim: int, max_num: int = 20, max_den: int = 7) -> st.SearchStrategy[list[fmpq]]:
    """Rational points of the given dimension."""
    return st.lists(rationals(max_num, max_den), min_size=dim, max_size=dim)
