"""torch's global generator, seeded for one block and shared safely between threads.

A scenario's model must come out the same in the student's sandboxed run and in the judge,
which rebuilds it to compare. nn layers draw their first weights from torch's single global
generator, so a build seeds that generator and restores it afterwards (``fork_rng``). The
global generator belongs to the whole process, though, and ``diagnose`` and ``grade`` judge
several submissions at once in threads: without taking turns, one thread's layers draw from
another thread's seed and a correct submission is judged wrong. Every build that seeds the
global generator therefore goes through ``seeded``, which holds one process-wide lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import torch

# Re-entrant: a build may call another build (a scenario made of two models).
_GLOBAL_GENERATOR = threading.RLock()


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Inside the block, torch's global generator starts from ``seed`` and no other ``seeded``
    block of this process runs; afterwards it is back where the caller left it."""
    with _GLOBAL_GENERATOR, torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield
