"""``dp cost``: what automation costs. Given a cost per wrong automated decision and per escalated item, the
expected cost per 1,000 decisions against the confidence threshold, per system and family, the minimum-cost
threshold and where the certified threshold of `dp gate` sits on that curve.

A verb of its own rather than part of ``dp score``: the prices are the deploying team's, not the benchmark's,
so the scoring (and its DVC stage) does not change when a team changes its prices.
"""
