"""`dp stability`: how much a benchmark revision or a fresh draw moves the systems' results."""
