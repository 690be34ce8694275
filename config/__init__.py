"""Project configuration: settings, URLs, the Celery app, the WSGI/ASGI entry points, and the rules every outbound
request and secret follows (`outbound`, `secrets`: no Django, so the machine judges' pure core can use them).

The Celery app is loaded by `judging`'s AppConfig when Django starts (so that shared tasks bind to it), not here:
importing this package must not start Django for a module that only needs the outbound rules.
"""
