"""A benchmark's own PostgreSQL database: dropped and made anew on DATABASE_URL's server, so a run starts empty and
never touches the database the URL names."""

from __future__ import annotations

import os


def fresh_postgres(name: str) -> str:
    """Makes database `name` anew on DATABASE_URL's server (default: the local one) and points DATABASE_URL at it;
    returns its URL."""
    import psycopg

    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/workbench")
    base, _, _ = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.execute(f"CREATE DATABASE {name}")
    os.environ["DATABASE_URL"] = f"{base}/{name}"
    return os.environ["DATABASE_URL"]
