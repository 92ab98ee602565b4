"""Shared test settings: Hypothesis profiles sized for a 2-core CI machine."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Deterministic by default, so that a clean-clone run is reproducible; HYPOTHESIS_PROFILE=dev
# explores new random examples.
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
