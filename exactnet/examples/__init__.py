"""The worked examples of theory.md section 5, shipped with the package.

* ``A``: ``(2,3,1)``, minimal in neuron count but not identifiable (flip all three neurons).
* ``B``: ``(2,1,1,1)``, a width-one layer admits a reflection.
* ``C``: ``(2,2,2,1)``, deep and generic, Jacobian rank ``11 = D - N``.
* ``D``: ``C`` with a stably active neuron ``(2,2)``: rank 10.

The same files are in the repository's ``examples/`` folder for the command line.
"""

from __future__ import annotations

from importlib import resources

from ..errors import ValueRangeError
from ..netjson import loads_network
from ..network import Network

__all__ = ["example", "example_names", "example_text", "example_description"]

_NAMES = ("A", "B", "C", "D")


def example_names() -> tuple[str, ...]:
    """Names of the shipped examples."""
    return _NAMES


def example_text(name: str) -> str:
    """The JSON text of a shipped example."""
    key = name.upper()
    if key not in _NAMES:
        raise ValueRangeError(f"unknown example {name!r}: choose one of {', '.join(_NAMES)}")
    return resources.files(__package__).joinpath(f"example_{key.lower()}.json").read_text(encoding="utf-8")


def example(name: str) -> Network:
    """The shipped example network ``name`` (A, B, C or D)."""
    return loads_network(example_text(name))


def example_description(name: str) -> str:
    """One sentence on what the example shows."""
    return str(example(name).metadata.get("description", ""))
