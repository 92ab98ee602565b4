"""Seeded random networks with small exact weights.

:func:`random_network` draws every weight and bias independently as ``p/q`` with
``p`` uniform in ``[-max_num, max_num]`` and ``q`` uniform in ``[1, max_den]``
(``max_den = 1`` gives integer weights), from ``random.Random(seed)``: the same
seed gives the same network on every machine. This is the documented distribution
that surveys and benchmarks refer to.
"""

from __future__ import annotations

import random
from typing import Sequence

from flint import fmpq

from .errors import ShapeError, ValueRangeError
from .network import Network
from .qq import MAX_DIGITS

__all__ = ["random_network", "parse_architecture", "random_rational", "MAX_PARAMETERS"]

#: Largest parameter count of an architecture (about 1 GB of exact rationals; a width-1000
#: network of ten layers has about 10^7 parameters).
MAX_PARAMETERS = 10**7


def parse_architecture(arch: str | Sequence[int]) -> tuple[int, ...]:
    """``"2,3,3,1"`` or a sequence of ints -> a validated architecture tuple."""
    if isinstance(arch, str):
        try:
            vals = tuple(int(t) for t in arch.split(","))
        except ValueError:
            raise ShapeError(f"architecture must be comma-separated positive integers, got {arch!r}") from None
    else:
        vals = tuple(int(a) for a in arch)
    if len(vals) < 2 or any(v < 1 for v in vals):
        raise ShapeError(
            f"architecture needs at least two positive widths (input, ..., output), got {arch!r}"
        )
    if any(v > 100000 for v in vals):
        raise ValueRangeError(f"architecture {vals}: widths above 100000 are not supported")
    D = sum((a + 1) * b for a, b in zip(vals, vals[1:]))
    if D > MAX_PARAMETERS:
        raise ValueRangeError(f"architecture {vals} has {D} parameters; at most {MAX_PARAMETERS} are supported "
                              "(every one is an exact rational object)")
    return vals


def random_rational(rng: random.Random, max_num: int, max_den: int) -> fmpq:
    """One rational ``p/q``, ``|p| <= max_num``, ``1 <= q <= max_den``."""
    return fmpq(rng.randint(-max_num, max_num), rng.randint(1, max_den))


def random_network(
    arch: str | Sequence[int],
    seed: int | None = 0,
    max_num: int = 9,
    max_den: int = 5,
    name: str | None = None,
) -> Network:
    """A random network of architecture ``arch`` (see the module docstring for the law)."""
    a = parse_architecture(arch)
    if max_num < 1 or max_den < 1:
        raise ValueRangeError("max_num and max_den must be at least 1")
    if len(str(max_num)) + len(str(max_den)) > MAX_DIGITS:  # a weight p/q could not be read back
        raise ValueRangeError(f"max_num and max_den have more than {MAX_DIGITS} digits together "
                              "(the limit of a number in a network file)")
    rng = random.Random(seed)
    layers = []
    for l in range(1, len(a)):
        W = [[random_rational(rng, max_num, max_den) for _ in range(a[l - 1])] for _ in range(a[l])]
        b = [random_rational(rng, max_num, max_den) for _ in range(a[l])]
        layers.append((W, b))
    meta = {"generator": "exactnet.randnet.random_network", "seed": seed, "max_num": max_num, "max_den": max_den}
    return Network.from_lists(layers, name=name, metadata=meta)
