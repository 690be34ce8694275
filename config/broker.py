"""Celery's Redis transport with one repair, so that a worker outlives its broker.

When Redis goes away under load, Celery 5.7's consumer collects the broken connection (which drops the transport's
link to its connection settings) and then closes it. Closing the channel restores the unacknowledged messages,
which needs a fresh Redis client, which needs those settings: kombu 5.7 then raises AttributeError ('NoneType' has no
attribute 'hostname'), which is not a connection error, so the worker exits ("Unrecoverable error"). Here that case
is the connection error it is: the close goes on, the consumer reconnects. The messages it could not restore stay
in Redis's unacknowledged set, which kombu restores after its visibility timeout; the recompute sweep does not wait
for that (a dirty topic is sent again), nor does the job sweep. `tests/integration/test_broker_loss.py` kills Redis
under load and fails without this.
"""

from __future__ import annotations

import redis
from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict:
        if self.connection.client is None:
            raise redis.exceptions.ConnectionError("the broker connection was closed; reconnecting")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel


def messages_waiting(queue: str) -> int | None:
    """How many messages wait in `queue` (Redis: over its priority lists), or None when the broker cannot tell."""
    from celery import current_app

    try:
        with current_app.connection_for_read() as conn:
            channel = conn.default_channel
            size = getattr(channel, "_size", None)
            if size is not None:
                return int(size(queue))
            return channel.queue_declare(queue=queue, passive=True).message_count
    except Exception:
        return None
