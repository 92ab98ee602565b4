"""Shared test settings: Hypothesis profiles sized for a 2-core CI machine."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Deterministic by default, so that a clean-clone run is reproducible; HYPOTHESIS_PROFILE=dev
# explores new random examples.
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def gap_closed_by(monkeypatch):
    """``check(net, seed, module, name, disabled)``: the region complex (no LP facts) gives the exact
    functional dimension; the sampled answer reaches it exactly; with ``module.name`` replaced by a
    prover that proves nothing (returns ``disabled``) it stays a strict lower bound. Returns
    ``(ref, fast, without)``."""
    from exactnet.fdim import functional_dimension

    def check(net, seed, module, name, disabled):
        ref = functional_dimension(net, use_regions=True, prove_signs=False, seed=seed)
        assert ref.status == "exact" and ref.complete
        fast = functional_dimension(net, use_regions=False, seed=seed)
        assert fast.status == "exact" and fast.functional_dimension == ref.functional_dimension
        monkeypatch.setattr(module, name, lambda *a, **k: disabled)
        without = functional_dimension(net, use_regions=False, seed=seed)
        assert without.status == "lower-bound" and without.upper_bound > ref.functional_dimension
        return ref, fast, without
    return check
