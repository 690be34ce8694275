"""Middleware for a public deployment: proxy headers trusted only from the configured proxies, and a
Content-Security-Policy on every answer (the pages run no inline script)."""

from __future__ import annotations

import ipaddress

from django.conf import settings

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        # Inline style attributes draw the progress bars; styles cannot run code.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
FORWARDED_HEADERS = ("HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_HOST")


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in settings.TRUSTED_PROXY_NETWORKS)


class TrustedProxyMiddleware:
    """Drops X-Forwarded-* headers unless the request comes from a configured proxy (TRUSTED_PROXIES), so that no
    client can claim HTTPS or another address; from a trusted proxy, the client's address becomes REMOTE_ADDR (what
    login throttling counts)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        meta = request.META
        if _trusted(meta.get("REMOTE_ADDR", "")):
            forwarded = [a.strip() for a in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
            if forwarded:
                meta["REMOTE_ADDR"] = forwarded[-1]
        else:
            for header in FORWARDED_HEADERS:
                meta.pop(header, None)
        return self.get_response(request)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


class RefuseNulParametersMiddleware:
    """Answers 400 naming the parameter when a query-string value holds a NUL character, which no database column
    can hold: every view then works on parameters PostgreSQL can compare (JSON for the API, the 400 page else)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                return _bad_parameter(request, name.replace("\x00", "\\0"))
        return self.get_response(request)


def _bad_parameter(request, name: str):
    from config.api_errors import error_response

    return error_response(request, 400, f"the parameter {name!r} contains a NUL character")


class UploadSizeLimitMiddleware:
    """Refuses a request whose declared body is larger than the upload limit before any of it is read (413, saying
    the limit), so an oversized upload costs neither the disk nor a worker."""

    MARGIN = 64 * 1024  # the multipart envelope around the file

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.WORKBENCH_LIMITS["upload_bytes"]
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit + self.MARGIN:
            from config.api_errors import error_response

            message = f"the upload is {length:,} bytes; the limit is {limit:,} bytes (WORKBENCH_MAX_UPLOAD_BYTES)"
            return error_response(request, 413, message)
        return self.get_response(request)
