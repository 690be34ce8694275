"""Logging filters: an expected refusal (403, 404) is one line in the log, not a traceback."""

import logging


class ExpectedRefusalsWithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) in (403, 404):
            record.exc_info, record.exc_text = None, None
        return True
