"""Output files: the mode a plain open(path, "w") would give, whatever the umask (exactnet/fileio.py),
and a warning when a command leaves an earlier run's file where it was asked to write (cli_common)."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
EXE = [sys.executable, "-m", "exactnet"]


def mode(p):
    return stat.S_IMODE(os.stat(p).st_mode)


@pytest.mark.skipif(os.name != "posix", reason="file modes and umask are POSIX")
@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_outputs_get_the_mode_open_would_give(tmp_path, umask, expected):
    net, cert = tmp_path / "n.json", tmp_path / "a.cert"
    r = subprocess.run(EXE + ["random", "--arch", "2,3,1", "--seed", "0", "-o", str(net)], umask=umask,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert mode(net) == expected
    r = subprocess.run(EXE + ["certify", str(EX / "example_a.json"), "-o", str(cert)], umask=umask,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert mode(cert) == expected
    plain = tmp_path / "plain.txt"
    subprocess.run([sys.executable, "-c", f"open({str(plain)!r}, 'w').close()"], umask=umask, check=True)
    assert mode(plain) == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.cert", "n.json", "plain.txt"]  # no temp left


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_an_existing_file_keeps_its_mode_like_open(tmp_path):
    from exactnet.fileio import atomic_write_text

    p = tmp_path / "kept.txt"
    p.write_text("old")
    os.chmod(p, 0o640)
    atomic_write_text(p, "new")
    assert p.read_text() == "new" and mode(p) == 0o640


# --- an output that was not written: one warning line, the old file is kept ---------------------

WARN = "exactnet: warning: {} was not written; the file there is from an earlier run"


def tied_deep_network(path):
    """Ten identical neurons in hidden layer 1 of three: 10! orderings of the tie, over the
    canonical form's limit, so certify answers UNDECIDED (exit 1) and writes nothing."""
    from exactnet.netjson import dumps_network
    from exactnet.network import Network

    n = 10
    net = Network.from_lists([([[1]] * n, [0] * n), ([list(range(1, n + 1)), list(range(2, n + 2))], [0, 1]),
                              ([[1, 2]], [0])])
    path.write_text(dumps_network(net))


def cli(*argv, cwd):
    return subprocess.run(EXE + list(argv), capture_output=True, text=True, cwd=cwd)


def test_certify_undecided_warns_about_the_old_certificate(tmp_path):
    r = cli("certify", str(EX / "example_a.json"), "-o", "stale.cert", cwd=tmp_path)
    assert r.returncode == 0 and "exactnet: warning" not in r.stderr
    old = (tmp_path / "stale.cert").read_text()
    tied_deep_network(tmp_path / "u.json")
    r = cli("certify", "u.json", "-o", "stale.cert", "--theta-prime", "fresh.json", cwd=tmp_path)
    assert r.returncode == 1 and "verdict: UNDECIDED" in r.stdout, r.stdout + r.stderr
    lines = r.stderr.splitlines()
    assert lines.count(WARN.format("stale.cert")) == 1, r.stderr
    assert not any("fresh.json" in line for line in lines)  # nothing was there: nothing to say
    assert (tmp_path / "stale.cert").read_text() == old  # never deleted, never touched
    assert not (tmp_path / "fresh.json").exists()
    # a run that writes the file says nothing
    r = cli("certify", str(EX / "example_a.json"), "-o", "stale.cert", cwd=tmp_path)
    assert r.returncode == 0 and "warning" not in r.stderr


def test_a_command_failing_after_its_output_check_warns(tmp_path):
    (tmp_path / "bad.json").write_text('{"format": "x"}')
    (tmp_path / "out.json").write_text("an earlier canonical form\n")
    r = cli("canon", "bad.json", "-o", "out.json", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    err = r.stderr.splitlines()
    assert len(err) == 2 and err[0].startswith("exactnet: error: ") and err[1] == WARN.format("out.json")
    assert (tmp_path / "out.json").read_text() == "an earlier canonical form\n"
    # refused before any work (the output is the input): no warning, the refusal says it all
    r = cli("canon", "bad.json", "-o", "bad.json", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "warning" not in r.stderr


def test_in_process_callers_can_report_after_each_command(tmp_path, capsys, monkeypatch):
    from exactnet.cli import main
    from exactnet.cli_common import report_unwritten_outputs

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("not json")
    (tmp_path / "out.json").write_text("old\n")
    assert main(["canon", "bad.json", "-o", "out.json"]) == 2
    report_unwritten_outputs()
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == WARN.format("out.json")
    report_unwritten_outputs()  # reports once
    assert capsys.readouterr().err == ""
    assert main(["canon", str(EX / "example_a.json"), "-o", "out.json"]) == 0
    report_unwritten_outputs()
    assert "warning" not in capsys.readouterr().err and (tmp_path / "out.json").read_text() != "old\n"
