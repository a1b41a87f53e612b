"""Capture: runs the user's program and records what torch.compile did (imports torch and the stdlib only)."""
