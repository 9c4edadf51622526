"""``dp compare --baseline RUNS/A --candidate RUNS/B``: what an upgrade fixes and breaks, item by item.

Per family and overall: items and contrast groups fixed (wrong before, right after) and broken (right
before, wrong after), an exact McNemar test on the contrast groups per family with Holm's correction
across families, and the scorer's paired bootstrap of pair accuracy (matched resamples, seed 20261007).
The verb fails (exit 1) when the candidate is significantly worse on any family.
"""
