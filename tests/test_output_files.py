"""Output files: the mode a plain open(path, "w") would give, whatever the umask (exactnet/fileio.py)."""

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
