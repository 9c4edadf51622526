"""audit: content-blind probes, partial-information heuristics, balance and hygiene checks."""
