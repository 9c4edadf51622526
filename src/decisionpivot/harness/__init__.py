"""DecisionPivot inside the evaluation harnesses people already run: inspect_ai and lm-evaluation-harness.

Both directions of one harness live in one module pair, because they share that harness's format
knowledge (what a sample is, which prompt it carries, which identifiers its logs hold):

* :mod:`~decisionpivot.harness.inspect_tasks` - the inspect_ai task registry (``inspect eval
  decisionpivot/core``), loaded by inspect through the package's ``inspect_ai`` entry point;
* :mod:`~decisionpivot.harness.inspect_import` - ``dp import inspect LOG``: an inspect log becomes answer files;
* :mod:`~decisionpivot.harness.lm_eval_export` - ``dp export lm-eval DIR``: a task folder for ``lm_eval
  --include_path DIR --tasks decisionpivot``;
* :mod:`~decisionpivot.harness.lm_eval_import` - ``dp import lm-eval SAMPLES``: its samples become answer files.

What both harnesses share sits below them: :mod:`~decisionpivot.harness.release_items` (the items,
checked as ``dp evaluate`` checks them) and :mod:`~decisionpivot.harness.imported` (writing an imported
run as ``dp evaluate`` writes one). One package rather than ``export/`` and ``imports/`` (``import`` is a
keyword): a split by direction would put one harness's format in two places.

Nothing here imports inspect_ai or lm_eval when ``decisionpivot`` is imported: the registry module is
loaded by inspect only, and the import modules import the harness inside their functions.
"""
