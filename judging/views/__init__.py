"""Pages of the judging app: `assessor` (start page and judging), `campaign` (admins' dashboard, imports, jobs).

Views only parse input, check access and call one service or selector.
"""

from judging.views.campaign import home

__all__ = ["home"]
