"""fixloop: fix until tests pass. Nothing here prints: stdout is the LSP channel."""

from fixloop import _version

# The one source is pyproject.toml's [project] version (installed metadata, or the checkout's file).
__version__: str = _version.version()
