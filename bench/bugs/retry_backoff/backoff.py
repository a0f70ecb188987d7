"""Delays between retries of a flaky call: exponential backoff with a ceiling."""


def retry_delays(attempts, base=0.5, factor=3, cap=30.0):
    """Seconds to wait before each of `attempts` retries: base, then doubling each time, never above cap."""
    delays = []
    delay = base
    for _ in range(attempts):
        delays.append(min(delay, cap))
        delay *= factor
    return delays


def total_wait(attempts, **options):
    return sum(retry_delays(attempts, **options))
