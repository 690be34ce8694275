"""Logging filters: an expected refusal (a 4xx: a malformed or oversized request, a permission, a missing page, a
throttle) is one line in the log, not a traceback; a traceback stays for what is a bug (5xx)."""

import logging


class ExpectedRefusalsWithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info, record.exc_text = None, None
        return True
