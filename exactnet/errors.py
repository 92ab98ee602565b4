"""Errors of exactnet: one base class, precise subclasses.

Every error a user can cause is an :class:`ExactnetError`. The command line
prints its message on one line (``exactnet: error: ...``) and exits 2; the
library lets it propagate. Subclasses say what went wrong so that callers and
tests can tell the cases apart without matching messages.
"""

from __future__ import annotations

__all__ = [
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


class ExactnetError(Exception):
    """Base class of every error exactnet raises on purpose."""


class FormatError(ExactnetError):
    """A file or string is not in the expected format (JSON, rationals, keys)."""


class ShapeError(ExactnetError):
    """Matrix or vector shapes do not fit together (ragged rows, layers that do not chain)."""


class ValueRangeError(ExactnetError):
    """A value is of the right kind but not allowed (NaN, infinity, too many digits, 1/0)."""


class LimitError(ExactnetError):
    """A user-set bound (time, cells, queries) was reached before the work finished."""


class UndecidedError(ExactnetError):
    """exactnet cannot prove an answer either way; the message gives the reason."""


class CertificateError(ExactnetError):
    """A certificate could not be produced or read."""


class OracleError(ExactnetError):
    """A black-box oracle misbehaved (bad reply, wrong width, exited)."""


class DependencyError(ExactnetError):
    """An optional dependency (torch, onnx, matplotlib, ...) is needed but not installed."""


class FileAccessError(ExactnetError):
    """A file named by the user cannot be read or written (missing, a folder, not a regular file, an input)."""
