"""The job engine only (ARCHITECTURE §5): Huey, the task decorator, enqueue-after-commit, the dispatcher
of due schedules, and the consumers. Families write ``@task("family.thing")`` bodies in their ``tasks.py``.
"""

from reelscope.worker.context import JobFailed, JobLost, JobRun, TaskContext
from reelscope.worker.queue import enqueue
from reelscope.worker.registry import task

__all__ = ["JobFailed", "JobLost", "JobRun", "TaskContext", "enqueue", "task"]
