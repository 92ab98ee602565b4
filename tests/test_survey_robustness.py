"""Survey robustness: --resume only continues the same survey, the pool fits the work, results
stream from workers, Ctrl-C leaves no worker tracebacks and keeps finished records, and a
--dask address where something else answers is one error line."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from exactnet.cli import main
from exactnet.errors import ExactnetError, FormatError
from exactnet.survey import _run_pool, run_survey, survey_sample

FORK = sys.platform != "darwin" and "fork" in mp.get_all_start_methods()


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- 1. --resume refuses the results of another survey --------------------------------------

@pytest.mark.parametrize("changed,needle", [
    ({"arch": "2,3,1"}, "arch 2,2,1 in the file, 2,3,1 asked"),
    ({"seed": 9}, "seed 4 in the file, 9 asked"),
    ({"max_num": 2}, "max-num 9 in the file, 2 asked"),
    ({"max_den": 1}, "max-den 5 in the file, 1 asked"),
])
def test_resume_refuses_a_file_of_another_survey(tmp_path, changed, needle):
    path = tmp_path / "s.jsonl"
    run_survey("2,2,1", 3, seed=4, output=path, quiet=True)
    before = path.read_bytes()
    kw = {"arch": "2,2,1", "seed": 4, **changed}
    with pytest.raises(FormatError) as e:
        run_survey(kw.pop("arch"), 5, output=path, resume=True, quiet=True, **kw)
    assert needle in str(e.value) and "\n" not in str(e.value)
    assert path.read_bytes() == before  # left as it was


def test_records_carry_the_parameters_that_determine_them(tmp_path):
    path = tmp_path / "s.jsonl"
    run_survey("2,2,1", 2, seed=3, max_num=4, max_den=2, output=path, quiet=True)
    for rec in _records(path):
        assert (rec["architecture"], rec["survey_seed"], rec["max_num"], rec["max_den"]) == ([2, 2, 1], 3, 4, 2)
        again = survey_sample(((2, 2, 1), 3, rec["index"], 4, 2))  # the record is reproducible from them
        assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in rec.items() if k != "seconds"}


def test_resume_refuses_records_without_survey_parameters(tmp_path):
    path = tmp_path / "old.jsonl"
    run_survey("2,2,1", 2, output=path, quiet=True)
    old = [{k: rec[k] for k in ("index", "seed", "verdict", "mechanism", "reason", "seconds")}
           for rec in _records(path)]  # the records of exactnet before they carried the parameters
    path.write_text("".join(json.dumps(r) + "\n" for r in old))
    with pytest.raises(FormatError, match="do not say which survey"):
        run_survey("2,3,3,1", 2, seed=9, output=path, resume=True, quiet=True)


def test_cli_resume_of_another_survey_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["survey", "--arch", "2,2,1", "--samples", "3", "-o", "w.jsonl", "--quiet", "--json"]) == 0
    capsys.readouterr()
    code = main(["survey", "--arch", "2,3,3,1", "--samples", "3", "--seed", "9", "-o", "w.jsonl",
                 "--resume", "--quiet", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("exactnet: error: ") and "arch 2,2,1" in err


# --- 2. the pool has no more processes than work ------------------------------------------------

@pytest.mark.skipif(not FORK, reason="counts the processes of a fork pool")
def test_pool_never_larger_than_the_samples_left(tmp_path, monkeypatch):
    ctx_type = type(mp.get_context("fork"))
    real = ctx_type.Pool
    sizes: list = []

    def spy(self, processes=None, *args, **kwargs):
        sizes.append(processes)
        return real(self, processes, *args, **kwargs)

    monkeypatch.setattr(ctx_type, "Pool", spy)
    path = tmp_path / "s.jsonl"
    summary = run_survey("2,2,1", 2, workers=40, output=path, quiet=True)
    assert sizes and all(0 < n <= 2 for n in sizes) and summary["workers"] <= 2
    assert sorted(r["index"] for r in _records(path)) == [0, 1]
    sizes.clear()
    summary = run_survey("2,2,1", 3, workers=40, output=path, resume=True, quiet=True)  # one sample left
    assert sizes == [] and summary["workers"] == 1
    assert summary["samples"] == 3


# --- 5. results stream from the workers one at a time ------------------------------------------

def _gated(task):
    """Sample 0 returns at once; the others wait (at most 1 s) for the parent to have received a result."""
    flag, index = task
    if index:
        t0 = time.monotonic()
        while not os.path.exists(flag) and time.monotonic() - t0 < 1.0:
            time.sleep(0.005)
    return {"index": index, "saw_flag": os.path.exists(flag)}


@pytest.mark.skipif(not FORK, reason="the gated task function is passed to a fork pool")
def test_results_stream_from_workers(tmp_path):
    flag = str(tmp_path / "flag")
    got = []
    for rec in _run_pool([(flag, i) for i in range(33)], 2, _gated):
        got.append(rec)
        Path(flag).touch()
    # no result waited for another one: each came back as soon as it was done
    assert sorted(r["index"] for r in got) == list(range(33))
    assert all(r["saw_flag"] for r in got if r["index"])


# --- 4. Ctrl-C with workers ---------------------------------------------------------------------

def _as_from_a_terminal():
    """The child starts with SIGINT unblocked and at its default, as a shell starts a command (the
    test process's own state, which other tests' pools and alarms touch, is not inherited)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="sends SIGINT to a process group")
def test_ctrl_c_with_workers_keeps_records_and_prints_one_line(tmp_path):
    path = tmp_path / "c.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "exactnet", "survey", "--arch", "2,2,1", "--samples", "200000", "--workers", "2",
         "-o", str(path), "--quiet"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_as_from_a_terminal)
    try:
        t0 = time.monotonic()
        while not (path.exists() and path.stat().st_size > 0) and time.monotonic() - t0 < 60:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, (proc.returncode, err[-500:], len(path.read_text().splitlines()))
    assert err == "exactnet: interrupted\n"
    lines = path.read_text().splitlines(keepends=True)
    complete = {json.loads(line)["index"] for line in lines if line.endswith("\n")}
    assert complete  # finished records stay in the file
    calls: list[int] = []

    def runner(tasks):
        calls.extend(t[2] for t in tasks)
        return map(survey_sample, tasks)

    n = max(complete) + 3
    run_survey("2,2,1", n, output=path, resume=True, quiet=True, runner=runner)
    assert sorted(calls) == sorted(set(range(n)) - complete)  # --resume uses them


# --- 3. --dask at an address where something else answers ---------------------------------

@pytest.fixture
def garbage_server():
    """A local TCP server that greets every connection with an SSH banner, as sshd does."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            try:
                conn.sendall(b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n" * 4)
            except OSError:
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    srv.close()


def test_dask_address_where_something_else_answers(garbage_server, tmp_path, monkeypatch, capsys):
    pytest.importorskip("dask.distributed")
    with pytest.raises(ExactnetError, match="cannot reach the Dask scheduler at " + garbage_server):
        run_survey("2,2,1", 2, dask_address=garbage_server, quiet=True)
    monkeypatch.chdir(tmp_path)
    code = main(["survey", "--arch", "2,2,1", "--samples", "2", "--dask", garbage_server, "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot reach the Dask scheduler" in err
