"""DecisionPivot: a diagnostic benchmark for decision models in LLM systems."""

__version__ = "0.1.0"

BENCHMARK_VERSION = "1.1"
"""Version of the released core set (the paper's version 1.1)."""

RELEASE_SEED = 20261008
"""Seed of the released core items (mirrored in params.yaml); fresh draws use other seeds."""
