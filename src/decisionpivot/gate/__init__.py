"""`dp gate`: confidence thresholds certified on fresh draws, checked on the release.

The paper's C(0.05) is *retrospective*: the coverage of the best threshold chosen with the evaluation
labels themselves. A team that lets a decision model act alone needs the threshold before it sees
those labels. Fresh draws (``dp generate --seed N``) come from the same generators and levels as the
release, so they are a calibration set that never touches the released items:

* :mod:`~decisionpivot.gate.method` - the test: Learn then Test (Angelopoulos, Bates, Candes, Jordan,
  Lei 2021) with binomial tail p-values, fixed-sequence testing down a fixed grid of thresholds from a
  start a pilot split chooses, one member per contrast group;
* :mod:`~decisionpivot.gate.calibration` - reading the calibration draws and answers;
* :mod:`~decisionpivot.gate.check` - realised risk and coverage on the release;
* :mod:`~decisionpivot.gate.recalibration` - certifying on confidences a `dp recalibrate` map recalibrated;
* :mod:`~decisionpivot.gate.report` - ``gate.json``, ``gate.md`` and one JSON per system;
* :mod:`~decisionpivot.gate.run` - the whole ``dp gate``.
"""
