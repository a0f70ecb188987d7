"""The kit: small helpers every layer may use (project text made safe for a terminal, walking a tree without
following links, the one tree-sitter parser, where a run's log lives). It imports nothing else of fixloop."""
