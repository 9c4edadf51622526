"""DecisionPivot: a diagnostic benchmark for decision models in LLM systems."""

__version__ = "0.1.0"

BENCHMARK_VERSION = "1.2"
"""Version of the released core set (1.2: the text revision of 1.1, see CHANGELOG.md)."""

RELEASE_SEED = 20261008
"""Seed of the released core items (mirrored in params.yaml); fresh draws use other seeds."""
