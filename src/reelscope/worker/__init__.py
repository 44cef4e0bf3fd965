"""The job engine (ARCHITECTURE §5): Huey, the task decorator, enqueue-after-commit, the jobs table
(``jobs/``), schedules (``schedules/``), the dispatcher of due schedules, and the consumers.

Families write ``@task("family.thing")`` bodies in their ``tasks.py`` and use the engine; the engine
never uses them. Inside it imports run one way, from ``registry`` up to ``consumer``
(``tests/test_import_direction.py`` holds the layers and fails on an import that runs the other way).
"""

from reelscope.worker.context import JobFailed, JobLost, JobRun, TaskContext
from reelscope.worker.queue import enqueue
from reelscope.worker.registry import task

__all__ = ["JobFailed", "JobLost", "JobRun", "TaskContext", "enqueue", "task"]
