"""One converter per reference task: ``convert(source, card, **inputs) -> list[Item]`` (all candidates)."""
