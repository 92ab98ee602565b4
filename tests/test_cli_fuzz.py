"""Cases found by an adversarial sweep of every subcommand (malformed files, odd paths, odd options).

Each one broke the command-line rule: bad input gets ``exactnet: error: <one line>`` on stderr and
a nonzero exit, never a traceback, never a hang, never a silently ignored request, never a partial
or misplaced output file. ``exactnet check`` keeps the independent checker's own protocol (verdict
lines on stdout, exit 3 for an input it cannot read).
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cli_util import assert_one_line_error, run, workspace

ROOT = Path(__file__).resolve().parents[1]
GOOD = (ROOT / "examples" / "example_a.json").read_text()  # (2, 3, 1)
CERT = ROOT / "tests" / "certs" / "valid" / "hidden_symmetry_a.cert"
NET_OF_CERT = ROOT / "examples" / "example_a.json"  # the network CERT is about
LAYERS = json.loads(GOOD)["layers"]


@pytest.fixture
def ws(tmp_path, monkeypatch):
    """A work folder holding good.json; returns a snapshot of the file names in it."""
    return workspace(tmp_path, monkeypatch, GOOD)


# --- network files that are not what they claim ---------------------------------------------

def _net(**extra) -> str:
    return json.dumps({"format": "exactnet-network/1", "layers": LAYERS, **extra})


JSON_CASES = {
    # a JSON escape of half a surrogate pair is valid JSON but not text: info crashed printing the name
    "surrogate_name": ('{"format": "exactnet-network/1", "name": "\\ud800", "layers": ' + json.dumps(LAYERS) + "}",
                       "surrogate"),
    "surrogate_meta": ('{"format": "exactnet-network/1", "metadata": {"description": "\\udfff"}, "layers": '
                       + json.dumps(LAYERS) + "}", "surrogate"),
    # a key given twice: the first "layers" was silently dropped
    "duplicate_key": ('{"format": "exactnet-network/1", "layers": [], "layers": ' + json.dumps(LAYERS) + "}",
                      "appears twice"),
    "empty": ("", "is empty"),
    "blank": (" \n\t\n", "is empty"),
}


@pytest.mark.parametrize("case", sorted(JSON_CASES))
@pytest.mark.parametrize("cmd", [["info"], ["canon", "-o", "o.json"], ["convert", "-o", "o.json"]])
def test_bad_json_network(capsys, ws, case, cmd):
    text, needle = JSON_CASES[case]
    Path("bad.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    before = ws()
    code, _, err = run(capsys, cmd[0], "bad.json", *cmd[1:])
    assert_one_line_error(code, err, needle)
    assert ws() == before


@pytest.mark.parametrize("source", ["a paper, 2024", [1, 2], 7])
def test_convert_keeps_a_json_inputs_own_source_that_is_not_an_object(capsys, ws, source):
    """``metadata.source`` of a JSON network may be any JSON value: convert crashed (ValueError)."""
    Path("src.json").write_text(_net(metadata={"source": source}))
    code, _, err = run(capsys, "convert", "src.json", "-o", "o.json")
    assert code == 0, err
    meta = json.loads(Path("o.json").read_text())["metadata"]["source"]
    assert meta["original"] == source and meta["file"] == "src.json"


@pytest.mark.parametrize("cmd", [["info"], ["convert", "-o", "o.json"], ["equiv", "good.json"]])
@pytest.mark.parametrize("name", ["pipe.json", "pipe.npz", "pipe.onnx"])
def test_a_named_pipe_without_a_writer_is_no_hang(capsys, ws, monkeypatch, cmd, name):
    """Opening a FIFO for reading waits for a writer: the commands waited forever. Now a JSON reader
    waits PIPE_WRITER_WAIT seconds for one (shortened here), binary readers refuse pipes."""
    monkeypatch.setattr("exactnet.fileio.PIPE_WRITER_WAIT", 0.3)
    os.mkfifo(name)
    code, _, err = run(capsys, cmd[0], name, *cmd[1:])
    assert_one_line_error(code, err, name)
    assert "empty" in err or "not a regular file" in err


def _late_writer(path, data, delay=0.5):
    """Open the named pipe ``path`` for writing after ``delay`` seconds and write ``data``."""
    def write():
        time.sleep(delay)
        with open(path, "wb") as f:
            f.write(data)
    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


def test_a_named_pipe_whose_writer_comes_later_is_read(capsys, ws):
    """Review finding: a writer that opened the pipe after exactnet found it 'empty' (and then
    waited forever for a reader). exactnet now waits for the writer, up to PIPE_WRITER_WAIT s."""
    os.mkfifo("late.json")
    t = _late_writer("late.json", GOOD.encode())
    code, out, err = run(capsys, "info", "late.json")
    t.join(5)
    assert code == 0 and "architecture  2,3,1" in out and not t.is_alive(), err


def test_a_pipe_with_a_writer_is_still_read(capsys, ws):
    """``exactnet info <(cat net.json)``: a pipe that has data is read as before."""
    r, w = os.pipe()
    os.write(w, GOOD.encode())
    os.close(w)
    try:
        code, out, err = run(capsys, "info", f"/dev/fd/{r}")
    finally:
        os.close(r)
    assert code == 0 and "architecture  2,3,1" in out, err


def test_a_device_is_not_read_as_a_network(capsys, ws):
    """/dev/zero was read without end; a device is refused by name before it is read."""
    code, _, err = run(capsys, "info", "/dev/null")
    assert_one_line_error(code, err, "not a regular file")


# --- NumPy archives ----------------------------------------------------------------------------

def _npy(a) -> bytes:
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


NPZ_MEMBERS = {
    # a header NumPy cannot tokenize: tokenize.TokenError escaped
    "bad_header": ({"W1.npy": b"\x93NUMPY\x01\x00\x10\x00{'descr': 'zz', }   \n", "b1.npy": _npy(np.zeros(1))},
                   "cannot read array 'W1'"),
    # a member that is not .npy data: NumPy returns its bytes, then AttributeError 'bytes' ... 'dtype'
    "not_npy": ({"W1.npy": b"hello world", "b1.npy": _npy(np.zeros(1))}, "'W1' is not a NumPy array"),
    "empty_member": ({"W1.npy": _npy(np.ones((1, 2))), "b1.npy": b""}, "'b1' is not a NumPy array"),
}


@pytest.mark.parametrize("case", sorted(NPZ_MEMBERS))
def test_npz_with_corrupt_members(capsys, ws, case):
    members, needle = NPZ_MEMBERS[case]
    with zipfile.ZipFile("bad.npz", "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    before = ws()
    code, _, err = run(capsys, "convert", "bad.npz", "-o", "o.json", "--float-mode", "exact")
    assert_one_line_error(code, err, needle)
    assert ws() == before


# --- ONNX graphs -------------------------------------------------------------------------------

def _onnx_cases():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    def T(name, a):
        return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)

    def model(nodes, inits, y_width=1):
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", y_width])], initializer=inits)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])

    W, b = T("W", np.ones((3, 2))), T("b", np.zeros(3))
    return onnx, {
        # nodes with too few inputs: IndexError
        "gemm_one_input": (model([helper.make_node("Gemm", ["x"], ["y"])], []), "Gemm node has 1 inputs"),
        "matmul_one_input": (model([helper.make_node("MatMul", ["x"], ["y"])], []), "MatMul node has 1 inputs"),
        "add_one_input": (model([helper.make_node("MatMul", ["x", "V"], ["z"]), helper.make_node("Add", ["z"], ["y"])],
                                [T("V", np.ones((2, 1)))]), "Add node has 1 inputs"),
        # a Constant without an output: IndexError
        "constant_no_output": (model([helper.make_node("Constant", [], [], value=T("c", np.ones((2, 1)))),
                                      helper.make_node("MatMul", ["x", "V"], ["y"])], [T("V", np.ones((2, 1)))]),
                               "Constant node has 0 outputs"),
        # attributes of the wrong type: ValueError / TypeError, or a string taken as transB = 1
        "alpha_string": (model([helper.make_node("Gemm", ["x", "W", "b"], ["y"], transB=1, alpha="abc")], [W, b], 3),
                         "attribute alpha must be a float"),
        "alpha_list": (model([helper.make_node("Gemm", ["x", "W", "b"], ["y"], transB=1, alpha=[1, 2])], [W, b], 3),
                       "attribute alpha must be a float"),
        "transB_string": (model([helper.make_node("Gemm", ["x", "W", "b"], ["y"], transB="yes")], [W, b], 3),
                          "attribute transB must be the integer 0 or 1"),
        "transB_two": (model([helper.make_node("Gemm", ["x", "W", "b"], ["y"], transB=2)], [W, b], 3),
                       "attribute transB must be the integer 0 or 1"),
    }


_ONNX_NAMES = ["gemm_one_input", "matmul_one_input", "add_one_input", "constant_no_output", "alpha_string",
               "alpha_list", "transB_string", "transB_two"]


@pytest.mark.parametrize("case", _ONNX_NAMES)
def test_onnx_malformed_nodes(capsys, ws, case):
    onnx, cases = _onnx_cases()
    m, needle = cases[case]
    onnx.save(m, "bad.onnx")
    before = ws()
    code, _, err = run(capsys, "convert", "bad.onnx", "-o", "o.json", "--float-mode", "exact")
    assert_one_line_error(code, err, needle)
    assert ws() == before


# --- check: the checker's protocol, but never a hang -----------------------------------------

@pytest.mark.parametrize("where", ["cert", "network"])
def test_check_does_not_wait_forever_for_a_pipe(capsys, ws, monkeypatch, where):
    monkeypatch.setattr("exactnet.fileio.PIPE_WRITER_WAIT", 0.3)
    os.mkfifo("pipe")
    argv = ["check", "pipe"] if where == "cert" else ["check", str(CERT), "--network", "pipe"]
    code, out, err = run(capsys, *argv)
    assert code == 3 and out.startswith("s NOT VERIFIED\nc line 0 E_IO: pipe is empty"), (out, err)
    code, out, err = run(capsys, "check", "/dev/zero")
    assert code == 3 and "E_IO: /dev/zero is not a regular file" in out, (out, err)


@pytest.mark.parametrize("where", ["cert", "network"])
def test_check_reads_pipes_like_the_checker(capsys, ws, where):
    """Review finding: ``exactnet check <(cat c.cert)`` and ``... --network <(cat net.json)`` were
    refused (E_IO) where ``python proofs/check.py`` reads them; a late writer of a named pipe too."""
    src = CERT if where == "cert" else NET_OF_CERT
    r, w = os.pipe()
    os.write(w, src.read_bytes())
    os.close(w)
    try:
        fd = f"/dev/fd/{r}"
        code, out, err = run(capsys, *(["check", fd, "--network", str(NET_OF_CERT)] if where == "cert"
                                       else ["check", str(CERT), "--network", fd]))
    finally:
        os.close(r)
    assert code == 0 and out.startswith("s VERIFIED"), (out, err)
    os.mkfifo("late")
    t = _late_writer("late", src.read_bytes())
    code, out, err = run(capsys, *(["check", "late"] if where == "cert" else ["check", str(CERT), "--network", "late"]))
    t.join(5)
    assert code == 0 and out.startswith("s VERIFIED"), (out, err)


def test_check_a_certificate_whose_name_starts_with_a_dash(capsys, ws):
    """``exactnet check -- -x.cert`` was refused as a usage error of proofs/check.py."""
    Path("-x.cert").write_bytes(CERT.read_bytes())
    code, out, err = run(capsys, "check", "--", "-x.cert")
    assert code == 0 and out.startswith("s VERIFIED"), (out, err)


# --- options and output names that were silently reinterpreted -------------------------------

@pytest.mark.parametrize("argv,needle", [
    # the certificate was not written, and the command said nothing (exit 0)
    (["extract", "--oracle-cmd", "true", "--arch", "2,3,1", "--certificate", "c.cert"], "--certificate needs --oracle"),
    (["extract", "--oracle", "good.json", "--oracle-float", "--arch", "2,3,1", "--certificate", "c.cert"],
     "needs an exact oracle"),
    # Path() drops a trailing slash: "o.json/" wrote the file o.json
    (["random", "--arch", "2,3,1", "-o", "o.json/"], "ending in '/'"),
    (["canon", "good.json", "-o", "o.json/"], "ending in '/'"),
    (["certify", "good.json", "-o", "c.cert/"], "ending in '/'"),
    # an empty name meant "no output" (a temporary folder, no results file, a local run)
    (["demo", "--output-dir", ""], "empty folder name"),
    (["search", "--arch", "2,2,1", "--property", "hidden-symmetry", "--tries", "1", "-o", ""], "empty folder name"),
    (["survey", "--arch", "2,2,1", "--samples", "1", "-o", ""], "empty file name"),
    (["survey", "--arch", "2,2,1", "--samples", "1", "--dask", ""], "--dask needs a scheduler address"),
])
def test_options_that_were_silently_ignored(capsys, ws, argv, needle):
    before = ws()
    code, _, err = run(capsys, *argv)
    assert_one_line_error(code, err, needle)
    assert ws() == before


def test_names_with_control_characters_are_printed_escaped(capsys, ws):
    """A network's name or description with a newline or a terminal escape sequence (which could
    retitle the window or clear the screen) is printed with backslash escapes, one line each."""
    doc = json.loads(GOOD)
    doc["name"] = "evil\x1b]0;pwned\x07\nsecond"
    doc.setdefault("metadata", {})["description"] = "x\x1b[2Jy"
    Path("evil.json").write_text(json.dumps(doc))
    for argv in (["info", "evil.json"], ["regions", "evil.json"]):
        code, out, err = run(capsys, *argv)
        assert code == 0 and "\x1b" not in out and "\x07" not in out, (out, err)
    code, out, _ = run(capsys, "info", "evil.json")
    assert "evil\\x1b]0;pwned\\x07\\nsecond" in out and "x\\x1b[2Jy" in out
    assert json.loads(run(capsys, "info", "evil.json", "--json")[1])["name"] == doc["name"]
