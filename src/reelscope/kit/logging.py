"""Structured logs: events with fields, never f-strings into messages (STYLE)."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Any, TextIO

import structlog

from reelscope.kit.errors import writable

# httpx logs every request's full URL at INFO ("HTTP Request: GET https://…?key=… 200"), and a source's key
# may travel in the query string (YouTube's ``key=``, connectors reference §1.1): its value is blanked
# before any handler sees the record, whatever the levels (issue 26 item 7)
_QUERY_SECRET = re.compile(r"([?&](?:key|api_?key|access_token|token)=)[^&#\s\"']+", re.IGNORECASE)


class _QuerySecretsRedacted(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = _QUERY_SECRET.sub(r"\1***", message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


def _redact_request_logs() -> None:
    logger = logging.getLogger("httpx")
    if not any(isinstance(f, _QuerySecretsRedacted) for f in logger.filters):
        logger.addFilter(_QuerySecretsRedacted())


_redact_request_logs()


class _FileAndScreen:
    """A structlog logger writing every line to a file and warnings and worse to stderr too."""

    def __init__(self, file: TextIO) -> None:
        self._file = file

    def msg(self, message: str) -> None:
        self._file.write(message + "\n")
        self._file.flush()

    debug = info = msg

    def warning(self, message: str) -> None:
        self.msg(message)
        sys.stderr.write(message + "\n")

    warn = error = err = critical = exception = fatal = warning


# how this process's logs were configured, for a child process to log the same way (contract/read_workers.py)
_configured: dict[str, Any] = {}


def logging_configuration() -> dict[str, Any]:
    """The arguments of the last ``configure_logging`` call (none yet: empty, the defaults)."""
    return dict(_configured)


def configure_logging(level: str = "info", *, json: bool = False, file: Path | None = None) -> None:
    """Logs on stderr (std logging) and stdout (structlog); with ``file``, every line goes to that file
    and only warnings and worse to the screen (``serve`` on a terminal, issue 17: its welcome and demo
    key stay on screen)."""
    _configured.update(level=level, json=json, file=file)
    logger_factory: Any = structlog.PrintLoggerFactory()
    if file is None:
        logging.basicConfig(format="%(message)s", stream=sys.stderr, level=level.upper())
    else:
        file.parent.mkdir(parents=True, exist_ok=True)
        handle = file.open("a", encoding="utf-8")
        to_file = logging.StreamHandler(handle)
        to_screen = logging.StreamHandler(sys.stderr)
        to_screen.setLevel(logging.WARNING)
        logging.basicConfig(
            format="%(message)s", handlers=[to_file, to_screen], level=level.upper(), force=True
        )
        logger_factory = lambda *_args: _FileAndScreen(handle)  # noqa: E731
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
            _writable_line,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=logger_factory,
        cache_logger_on_first_use=True,
    )


def _writable_line(_logger: Any, _method: str, line: Any) -> Any:
    """The rendered line as UTF-8 can carry it: a value quoting a lone surrogate must not make the
    write fail, and with it the request being logged (issue 31; kit/errors.py ``writable``)."""
    return writable(line) if isinstance(line, str) else line


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    logger: structlog.stdlib.BoundLogger = structlog.get_logger(name)
    return logger
