"""The application: one run composed from settings (typed settings, the composition root, the fix and goal
sessions, the run log, reading and writing the user's files only through an accepted edit). The front ends
(`fixloop.cli`, `fixloop.lsp`, `fixloop.run_display`) import this layer, never an engine or an adapter."""
