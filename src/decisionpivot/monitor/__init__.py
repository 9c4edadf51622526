"""``dp monitor``: is a certificate still true on the team's own traffic? A labelled sample (items in our
format with answers, or a CSV of confidence and correct 0/1) goes through a certificate of `dp gate`
(``reports/gate/<system>.json``); realised risk and coverage come with exact intervals, and the verb fails
when the certified risk is exceeded with confidence.
"""
