"""generate: procedural core families (one module per family) and the drawing framework.

Use :func:`decisionpivot.generate.registry.families` to list families and
:func:`decisionpivot.generate.run.draw_family` to draw one.
"""
