"""Fixtures of the hostile-project suite: `host` (root and an unprivileged user) and `backend`."""

from .harness import backend, host  # noqa: F401  (pytest finds fixtures by name)
