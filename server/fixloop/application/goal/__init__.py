"""Goal mode: a problem described in words becomes a spec, a failing reproduction test, then a fix.

`ports.py` is the seam between the goal run and whoever writes the spec and the test (the offline
author here, a model-backed one elsewhere)."""
