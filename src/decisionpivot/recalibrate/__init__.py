"""``dp recalibrate``: is bad calibration fixable? Fit temperature scaling and isotonic recalibration on fresh
draws (never the release), apply them to the release answers, and report ECE, accuracy at 0.90 and certified
coverage before and after; the fitted map is written as versioned JSON a team applies with
``dp recalibrate apply``.
"""
