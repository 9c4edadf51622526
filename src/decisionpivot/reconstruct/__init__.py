"""reconstruct: rebuild the reference track's test sets from official files (task cards in cards/)."""
