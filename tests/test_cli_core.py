"""The core command line: info, eval, canon, random, demo, and its error handling."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exactnet.cli import main

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_info_json(capsys):
    code, out, _ = run(capsys, "info", str(EX / "example_a.json"), "--json")
    assert code == 0
    d = json.loads(out)
    assert d["architecture"] == [2, 3, 1] and d["parameters"] == 13 and d["hidden_neurons"] == 3


def test_eval_negative_values(capsys):
    code, out, _ = run(capsys, "eval", str(EX / "example_a.json"), "--point", "1/2,-3", "--json")
    assert code == 0 and json.loads(out)["output"] == ["4"]
    code, out, _ = run(capsys, "eval", str(EX / "example_a.json"), "--point", "-1/2,3", "--json")
    assert json.loads(out)["output"] == ["3"]


def test_canon_and_random(capsys, tmp_path):
    code, out, _ = run(capsys, "canon", str(EX / "example_c.json"))
    assert code == 0 and json.loads(out)["format"] == "exactnet-network/1"
    target = tmp_path / "net.json"
    code, _, _ = run(capsys, "random", "--arch", "2,3,3,1", "--seed", "7", "-o", str(target))
    assert code == 0
    assert json.loads(target.read_text())["layers"][0]["weights"]
    code2, _, _ = run(capsys, "random", "--arch", "2,3,3,1", "--seed", "7", "-o", str(tmp_path / "b.json"))
    assert (tmp_path / "b.json").read_text() == target.read_text()


@pytest.mark.parametrize(
    "content",
    ["", "not json", '{"format": "x"}', '{"format": "exactnet-network/1", "layers": [{"weights": [[0.1]], "biases": [0]}]}'],
)
def test_bad_input_one_line_exit_2_nothing_written(capsys, tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    out_file = tmp_path / "out.json"
    code, out, err = run(capsys, "canon", str(bad), "-o", str(out_file))
    assert code == 2
    assert err.startswith("exactnet: error: ") and err.count("\n") == 1
    assert "Traceback" not in err
    assert not out_file.exists()
    assert list(tmp_path.iterdir()) == [bad]


def test_missing_file(capsys):
    code, _, err = run(capsys, "info", "/nonexistent/net.json")
    assert code == 2 and "file not found" in err


def test_bad_arch(capsys):
    code, _, err = run(capsys, "random", "--arch", "2,x,1")
    assert code == 2 and err.startswith("exactnet: error:")


def test_demo_runs_as_a_program(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "exactnet", "demo", "--output-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "example A" in proc.stdout and "example C" in proc.stdout
    # the deep rules: (2,3,3,1) by deep-2, (2,2,2,2,1) by deep-3 and (2,2,2,2,3,1) by deep-n, all checked
    for name in ("identifiable_2-3-3-1.cert", "identifiable_2-2-2-2-1.cert", "identifiable_2-2-2-2-3-1.cert"):
        assert f"s VERIFIED IDENTIFIABLE  ({name})" in proc.stdout and (tmp_path / name).exists()
