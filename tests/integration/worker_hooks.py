"""Loaded into a test's separate worker process (celery worker --include): when WORKBENCH_TEST_HOLD_FILE is set,
a topic recompute writes that file after claiming the topic and then holds for a while, so the test can kill the
worker in the middle of the task. Test-only; production never imports it."""

import os
import time
from pathlib import Path

from evaluation.services import recompute

HOLD_FILE = os.environ.get("WORKBENCH_TEST_HOLD_FILE")

if HOLD_FILE:
    _compute = recompute._topic

    def _held(topic_id: int, generation: int, phases) -> None:
        Path(HOLD_FILE).write_text(str(topic_id))
        time.sleep(30)
        _compute(topic_id, generation, phases)

    recompute._topic = _held
