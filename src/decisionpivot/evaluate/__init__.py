"""evaluate: run a system over the benchmark and write resumable answer files under runs/."""
