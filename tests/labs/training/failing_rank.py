"""Test-only: the training loop in a rank that fails before a given window, for the data-parallel
failure tests. The ranks are spawned, so this module is what they import, by name."""

import itertools
import os
import threading

from labs.training.loop import train


def train_failing(config, device, *, rank, should_stop, fail_at: tuple[int, int, str], **options):
    """loop.train, except that rank ``fail_at[0]`` fails before window ``fail_at[1]`` as
    ``fail_at[2]`` says: "raise" an error, "exit" with code 3, or "hang" for ever."""
    failing_rank, failing_window, how = fail_at
    windows = itertools.count()

    def stop_or_fail() -> bool:
        if rank == failing_rank and next(windows) == failing_window:
            if how == "exit":
                os._exit(3)
            if how == "hang":
                threading.Event().wait()  # never set: its peers wait in the next collective
            raise RuntimeError(f"failed on purpose before window {failing_window}")
        return should_stop()

    return train(config, device, rank=rank, should_stop=stop_or_fail, **options)
