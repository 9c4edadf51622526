"""scale: the scale suite, score questions with exact gold (`dp scale`).

Each family asks for a level on an ordered scale (a priority, a severity, a risk tier, a discrepancy band, a
match grade) that follows exactly from stated rules and facts. One module per family, as in ``generate/``:
its story in the docstring, constants, a frozen config with ``validate()``, case -> answer -> rendering ->
contrast group, heuristics, registration (:mod:`decisionpivot.scale.registry`, apart from the core's 13).
The groups and the item format are shared: :mod:`decisionpivot.scale.boundary` (members one step either side
of one level boundary) and :mod:`decisionpivot.score_questions` (levels as options "0".., lowest first).
:mod:`decisionpivot.scale.run` draws the suite and writes it with its MANIFEST.json.
"""

SCALE_VERSION = "1.0"
"""Version of the scale suite (the manifest's ``version``; each family's generator has its own)."""
SCALE_SEED = 20261101
"""Seed of the released scale suite; other seeds draw fresh suites."""
SCALE_BENCHMARK = "DecisionPivot scale"
"""``benchmark`` of the suite's MANIFEST.json (what tells a scale folder from a core or invariance folder)."""
