"""exactnet: exact, certified answers about ReLU networks.

The public API is re-exported here; the private modules each do one job:
:mod:`exactnet.qq` (rationals), :mod:`exactnet.network` (the model),
:mod:`exactnet.netio` (files), :mod:`exactnet.symmetry` (permutations and
scalings), :mod:`exactnet.randnet` (random networks), :mod:`exactnet.strategies`
(Hypothesis strategies), and the analyses added by later layers.
"""

from __future__ import annotations

from .errors import (
    CertificateError,
    DependencyError,
    ExactnetError,
    FileAccessError,
    FormatError,
    LimitError,
    OracleError,
    ShapeError,
    UndecidedError,
    ValueRangeError,
)
from .netio import load_network, save_network
from .network import Layer, Network
from .qq import from_float, parse_q, q_str, to_q

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "Network",
    "Layer",
    "load_network",
    "save_network",
    "parse_q",
    "to_q",
    "from_float",
    "q_str",
    "ExactnetError",
    "FormatError",
    "ShapeError",
    "ValueRangeError",
    "LimitError",
    "UndecidedError",
    "CertificateError",
    "OracleError",
    "DependencyError",
    "FileAccessError",
]
