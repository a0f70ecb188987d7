"""A broken fixloop for the VS Code e2e: put first on PYTHONPATH to shadow the real one."""
__version__ = "0.0.0-fake"
