"""Record -> Analysis: pure functions, no torch needed to load a record."""
