"""Solver messages written by C code to file descriptor 1 must not reach standard output."""

import os
import subprocess
import sys


def test_c_level_stdout_goes_to_stderr_inside_the_guard():
    code = (
        "import os, sys\n"
        "from exactnet.lp import solver_output_to_stderr\n"
        "print('before', flush=True)\n"
        "with solver_output_to_stderr():\n"
        "    os.write(1, b'solver noise\\n')\n"
        "print('after', flush=True)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["before", "after"]
    assert "solver noise" in r.stderr


def test_linprog_quiet_solves():
    from exactnet.lp import linprog_quiet

    res = linprog_quiet([-1.0], A_ub=[[1.0]], b_ub=[2.0], bounds=[(None, None)], method="highs")
    assert res.status == 0 and abs(res.x[0] - 2.0) < 1e-9
