"""The engines: what proposes and ranks edits (localization and the offline operators, mined templates,
generated tests, the strategy that leads a run). Beside the adapters: they import the domain and the kit only."""
