"""The verbs of ``dp``, one module per group; :mod:`decisionpivot.cli` assembles them and runs the command line."""
