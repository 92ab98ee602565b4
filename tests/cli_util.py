"""Helpers of the in-process command-line tests (tests/test_cli_robustness.py, test_cli_fuzz.py):
run ``exactnet`` with a deadline, and check the one-line error rule."""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

from exactnet.cli import main

__all__ = ["Hang", "assert_one_line_error", "run", "workspace"]


class Hang(BaseException):
    """Raised by the alarm of :func:`run`; not an OSError (TimeoutError is one, and the file readers
    would report it as a read error) and not an Exception (no fallback may swallow it)."""


@contextlib.contextmanager
def _deadline(seconds: float):
    """Fail the test instead of hanging (a blocking open of a pipe is interrupted by the alarm)."""
    def _alarm(signum, frame):
        raise Hang(f"the command did not finish within {seconds} s (a hang)")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run(capsys, *argv, seconds: float = 60):
    """``exactnet ARGV`` in this process: ``(exit code, stdout, stderr)``; a hang fails after ``seconds``."""
    with _deadline(seconds):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as e:  # argparse
            code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *needles):
    """Exit code 2 and exactly one line ``exactnet: error: ...`` on stderr, containing every needle."""
    assert code == 2, err
    assert err.startswith("exactnet: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, err


def workspace(tmp_path: Path, monkeypatch, good: str):
    """Work in ``tmp_path`` holding ``good.json``; returns a function listing the files there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.json").write_text(good)

    def files():
        return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))

    return files
