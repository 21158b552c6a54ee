"""Shared test setup for the gradlessons package."""

import matplotlib

# No display in CI: render with Agg, whatever MPLBACKEND says.
matplotlib.use("Agg")
