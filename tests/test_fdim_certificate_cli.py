"""``exactnet fdim --certificate`` on a rank-deficient network prints the result, then the error."""

import json
import subprocess
import sys

from exactnet.netio import save_network
from exactnet.randnet import random_network


def test_rank_deficient_network_prints_the_result_before_the_error(tmp_path):
    net_path, cert = tmp_path / "n.json", tmp_path / "n.cert"
    save_network(random_network([2, 3, 3, 1], seed=169), str(net_path))  # proved rank 18 < D - N = 19
    p = subprocess.run([sys.executable, "-m", "exactnet", "fdim", str(net_path), "--certificate", str(cert), "--json"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and not cert.exists()
    out = json.loads(p.stdout)
    assert out["functional_dimension"] == 18 and out["status"] == "exact" and out["bound"] == 19
    assert p.stderr.strip().splitlines()[-1].startswith("exactnet: error: no LOCALLY-IDENTIFIABLE certificate")
