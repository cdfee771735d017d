"""pytest entry point (filled in below)."""
