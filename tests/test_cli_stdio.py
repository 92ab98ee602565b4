"""``-`` on the command line: a network read from standard input, and standard output for the
outputs printed by default (``canon -o -``, ``random -o -``); every other output refuses ``-``
instead of creating a file of that name.

The commands run in a child process (``python -m exactnet``) so that standard input is a real
pipe, a terminal or empty, as a user's shell gives it.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from exactnet.netjson import dumps_network, loads_network
from exactnet.randnet import random_network


def exactnet(*argv, stdin=None, cwd=None):
    """Run ``python -m exactnet ARGV``; ``stdin``: text to pipe in, or a file descriptor."""
    kw = {"input": stdin} if isinstance(stdin, str) else {"stdin": stdin if stdin is not None else subprocess.DEVNULL}
    p = subprocess.run([sys.executable, "-m", "exactnet", *argv], capture_output=True, text=True, cwd=cwd,
                       timeout=120, **kw)
    return p.returncode, p.stdout, p.stderr


def one_line_error(rc, err, needle):
    assert rc == 2, err
    assert err.startswith("exactnet: error: ") and err.count("\n") == 1 and needle in err, err


@pytest.mark.parametrize("arch, seed", [((2, 3, 3, 1), 4), ((2, 2, 1), 0), ((1, 3, 2), 7)])
def test_piped_network_is_the_file_network(tmp_path, arch, seed):
    """``random -o -`` prints the same network as ``random -o FILE`` writes, and ``certify -``
    on it answers what ``certify FILE`` answers."""
    f = tmp_path / "n.json"
    args = ["random", "--arch", ",".join(map(str, arch)), "--seed", str(seed)]
    rc, text, err = exactnet(*args, "-o", "-")
    assert rc == 0, err
    assert exactnet(*args, "-o", str(f))[0] == 0
    assert text == f.read_text()
    assert loads_network(text) == random_network(arch, seed=seed)
    piped = exactnet("certify", "-", "--json", stdin=text)
    filed = exactnet("certify", str(f), "--json")
    assert piped[0] == filed[0] and json.loads(piped[1]) == json.loads(filed[1])
    assert not (tmp_path / "-").exists()


def test_canon_from_stdin_to_stdout(tmp_path):
    net = random_network((2, 3, 2, 1), seed=3)
    f = tmp_path / "n.json"
    f.write_text(dumps_network(net))
    rc, out, err = exactnet("canon", "-", "-o", "-", stdin=dumps_network(net))
    assert rc == 0, err
    assert out == exactnet("canon", str(f))[1] != ""


def test_two_networks_cannot_both_come_from_stdin():
    text = dumps_network(random_network((2, 2, 1), seed=1))
    one_line_error(*exactnet("equiv", "-", "-", stdin=text)[::2], "only one of the networks")


@pytest.mark.parametrize("argv", [["certify", "NET", "-o", "-"], ["regions", "NET", "-o", "-"],
                                  ["reduce", "NET", "-o", "-"], ["graph", "NET", "-o", "-"]])
def test_other_outputs_refuse_a_dash(tmp_path, argv):
    f = tmp_path / "n.json"
    f.write_text(dumps_network(random_network((2, 2, 1), seed=1)))
    rc, out, err = exactnet(*[str(f) if a == "NET" else a for a in argv], cwd=tmp_path)
    one_line_error(rc, err, "not available for this output")
    assert sorted(os.listdir(tmp_path)) == ["n.json"]


def test_empty_and_bad_stdin():
    one_line_error(*exactnet("info", "-", stdin="")[::2], "standard input is empty")
    one_line_error(*exactnet("info", "-")[::2], "standard input is empty")  # /dev/null
    one_line_error(*exactnet("info", "-", stdin="{")[::2], "<stdin>: not valid JSON")
    one_line_error(*exactnet("info", "-", stdin='{"format": "exactnet-network/1", "layers": []}')[::2], "<stdin>")


def test_a_terminal_is_not_read():
    """On a terminal ``-`` would wait for typing: refused at once instead (never a hang)."""
    master, slave = pty.openpty()
    try:
        rc, _, err = exactnet("info", "-", stdin=slave)
    finally:
        os.close(slave)
        os.close(master)
    one_line_error(rc, err, "nothing is piped in")


@pytest.mark.parametrize("argv", [["survey", "--arch", "2,2,1", "--samples", "2", "-o", "-"],
                                  ["search", "--arch", "2,2,1", "--property", "hidden-symmetry", "-o", "-"],
                                  ["demo", "--output-dir", "-"],
                                  ["convert", "-", "-o", "x.json"],
                                  ["extract", "--oracle", "-", "--arch", "2,2,1"]])
def test_files_and_folders_that_cannot_be_a_dash(tmp_path, argv):
    """Review findings: these created a file or folder named '-' or said 'file not found: -'."""
    rc, _, err = exactnet(*argv, stdin=dumps_network(random_network((2, 2, 1), seed=1)), cwd=tmp_path)
    one_line_error(rc, err, "'-' (standard input or output) is not available for")
    assert os.listdir(tmp_path) == []


def test_certify_from_stdin_suggests_a_check_command_that_works(tmp_path):
    rc, out, err = exactnet("certify", "-", "-o", "c.cert", stdin=dumps_network(random_network((2, 2, 1), seed=1)),
                            cwd=tmp_path)
    assert rc == 0, err
    hint = next(line for line in out.splitlines() if "check it with:" in line)
    cmd = hint.split("check it with: exactnet ")[1].rstrip(")").split()
    rc, out, err = exactnet(*cmd, cwd=tmp_path)
    assert rc == 0 and out.startswith("s VERIFIED"), (cmd, out, err)


@pytest.mark.parametrize("argv", [["canon", "NET"], ["canon", "NET", "-o", "-"], ["random", "--arch", "2,2,1"],
                                  ["info", "NET", "--json"]])
def test_a_closed_standard_output_is_one_error_line(tmp_path, argv):
    """Started with stdout closed (``>&-``): Python's sys.stdout is None; one line, not a traceback."""
    f = tmp_path / "n.json"
    f.write_text(dumps_network(random_network((2, 2, 1), seed=1)))
    p = subprocess.run(["sh", "-c", 'exec "$0" -m exactnet "$@" >&-', sys.executable,
                        *[str(f) if a == "NET" else a for a in argv]],
                       stderr=subprocess.PIPE, text=True, timeout=120, cwd=tmp_path)
    one_line_error(p.returncode, p.stderr, "standard output is closed")


def test_check_reads_the_certificate_or_the_network_from_stdin(tmp_path):
    """``exactnet check - --network N`` and ``check C --network -``: the same verdict as with files;
    a mutated certificate piped in is rejected as the file would be; ``-`` twice, a terminal and a
    closed standard input are I/O errors in the checker's format (exit 3)."""
    net = dumps_network(random_network((2, 2, 1), seed=1))
    (tmp_path / "n.json").write_text(net)
    rc, _, err = exactnet("certify", "n.json", "-o", "c.cert", cwd=tmp_path)
    assert rc == 0, err
    cert = (tmp_path / "c.cert").read_text()
    rc, by_file, _ = exactnet("check", "c.cert", "--network", "n.json", cwd=tmp_path)
    assert rc == 0 and by_file.startswith("s VERIFIED")
    assert exactnet("check", "-", "--network", "n.json", stdin=cert, cwd=tmp_path)[:2] == (0, by_file)
    assert exactnet("check", "c.cert", "--network", "-", stdin=net, cwd=tmp_path)[:2] == (0, by_file)
    other = dumps_network(random_network((2, 2, 1), seed=2))
    rc, out, _ = exactnet("check", "c.cert", "--network", "-", stdin=other, cwd=tmp_path)
    assert rc == 1 and "E_NETWORK_MISMATCH" in out
    rc, out, _ = exactnet("check", "-", stdin=cert.replace("end ", "end 0", 1)[:-2] + "\n", cwd=tmp_path)
    assert rc == 2 and out.startswith("s NOT VERIFIED")
    rc, out, _ = exactnet("check", "-", "--network", "-", stdin=cert, cwd=tmp_path)
    assert rc == 3 and "only one of the two files" in out
    master, slave = pty.openpty()
    try:
        rc, out, _ = exactnet("check", "-", stdin=slave, cwd=tmp_path)
    finally:
        os.close(slave)
        os.close(master)
    assert rc == 3 and "nothing is piped in" in out
    p = subprocess.run(["sh", "-c", 'exec "$0" -m exactnet check - <&-', sys.executable], capture_output=True,
                       text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 3 and "E_IO" in p.stdout, (p.stdout, p.stderr)
    assert sorted(os.listdir(tmp_path)) == ["c.cert", "n.json"]
