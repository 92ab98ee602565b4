"""Surveys: deterministic whatever the worker count, resumable, honest about the sampling law."""

import json

import pytest

from exactnet.errors import ExactnetError
from exactnet.survey import run_survey, survey_sample


def _lines(path):
    return sorted((json.loads(l) for l in path.read_text().splitlines()), key=lambda r: r["index"])


def _strip(recs):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in recs]


def test_same_results_whatever_the_worker_count(tmp_path):
    one = run_survey("2,2,1", 12, seed=3, workers=1, output=tmp_path / "a.jsonl", quiet=True)
    two = run_survey("2,2,1", 12, seed=3, workers=2, output=tmp_path / "b.jsonl", quiet=True)
    assert _strip(_lines(tmp_path / "a.jsonl")) == _strip(_lines(tmp_path / "b.jsonl"))
    assert one["verdicts"] == two["verdicts"]
    assert sum(v["count"] for v in one["verdicts"].values()) == 12
    from exactnet.certify import certify
    from exactnet.randnet import random_network

    for rec in _lines(tmp_path / "a.jsonl"):  # every line says why, as certify does for that network
        assert rec["reason"] == certify(random_network((2, 2, 1), seed=rec["seed"])).reason


def test_resume_after_interrupt(tmp_path):
    path = tmp_path / "s.jsonl"
    full = run_survey("2,2,1", 8, seed=1, output=path, quiet=True)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:10])  # three complete lines and a torn one
    calls = []

    def runner(tasks):
        calls.extend(t[2] for t in tasks)
        return map(survey_sample, tasks)

    again = run_survey("2,2,1", 8, seed=1, output=path, resume=True, quiet=True, runner=runner)
    done_first = {json.loads(l)["index"] for l in lines[:3]}
    assert sorted(calls) == sorted(set(range(8)) - done_first)
    assert again["verdicts"] == full["verdicts"]
    assert len(path.read_text().splitlines()) == 8


def test_refuses_to_overwrite(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("")
    with pytest.raises(ExactnetError):
        run_survey("2,2,1", 2, output=path, quiet=True)


def test_dask_local_cluster_gives_the_same_results(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    try:
        on_dask = run_survey("2,2,1", 6, seed=5, dask_address=cluster.scheduler_address,
                             output=tmp_path / "d.jsonl", quiet=True)
    finally:
        cluster.close()
    local = run_survey("2,2,1", 6, seed=5, output=tmp_path / "l.jsonl", quiet=True)
    assert _strip(_lines(tmp_path / "d.jsonl")) == _strip(_lines(tmp_path / "l.jsonl"))
    assert on_dask["verdicts"] == local["verdicts"]
