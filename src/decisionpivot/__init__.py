"""DecisionPivot: a diagnostic benchmark for decision models in LLM systems."""

__version__ = "0.1.0"

BENCHMARK_VERSION = "1.3"
"""Version of the released core set (1.3: text a careful person would have written, the revision of 1.2 for
issue #38; see CHANGELOG.md)."""

RELEASE_SEED = 20261008
"""Seed of the released core items (mirrored in params.yaml); fresh draws use other seeds."""
