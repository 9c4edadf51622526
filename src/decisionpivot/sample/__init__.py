"""`dp sample`: answers sampled from chat systems, graded into the capability-boundary labels."""
