"""Waiting for another process (a worker, a server) to reach a state: a bound, never a timing."""

import time


def wait_for(check, timeout: float, what: str, every: float = 0.2):
    """Polls `check` until it returns something true, and returns that."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
