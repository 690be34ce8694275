"""How long every page of the demo campaign takes to answer, for the role that sees it (target: under 500 ms each).

    .venv/bin/python benchmarks/pages.py [--repeat 5]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/workbench_pages .venv/bin/python benchmarks/pages.py

Builds the demo (as `manage.py demo` does: ten topics, four runs, two assessors' judgments, two weeks of search
traffic) in a database of its own (by default a fresh SQLite file in a temporary folder), then requests each page
through Django's test client with the plots it shows: one warm-up, then --repeat timed loads, reporting the median
and the slowest.
The time is the server's (view, queries, template), as a browser would wait for it minus the network. Peer: none;
the figures to compare are this script's on an earlier checkout.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("WORKBENCH_VAR_DIR", tempfile.mkdtemp(prefix="bench-pages-"))
os.environ.setdefault("DEBUG", "true")
TARGET_MS = 500


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.ALLOWED_HOSTS = ["testserver", *settings.ALLOWED_HOSTS]
    call_command("migrate", verbosity=0)
    from evaluation.online.demo import demo_pages, demo_search_log_create
    from judging.demo import DEMO_NAME, DEMO_USERS, demo_create
    from judging.models import Collection

    started = time.perf_counter()
    Collection.objects.filter(name=DEMO_NAME).delete()
    collection = demo_create()
    log = demo_search_log_create(collection=collection)
    print(f"demo built in {time.perf_counter() - started:.1f} s ({settings.DATABASES['default']['ENGINE']})")
    users = {role: username for username, _, role in DEMO_USERS}
    pages = {users[role]: urls for role, urls in demo_pages(collection, log).items()}
    from django.contrib.auth import get_user_model

    print(f"{'page (and its plots)':<58} {'median ms':>10} {'max ms':>8}")
    over = []
    for username, urls in pages.items():
        client = Client()
        client.force_login(get_user_model().objects.get(username=username))
        for url in urls:
            page = client.get(url)  # warm-up, and the page answers
            if page.status_code != 200:  # an earlier checkout may not have the page
                print(f"{username + ' ' + url:<58} {'HTTP ' + str(page.status_code):>10}")
                continue
            # A page is loaded once its plots are: each <img> the page names is requested after it, as a browser does.
            plots = re.findall(r'<img[^>]* src="(/results/[^"]+)"', page.content.decode())
            times = []
            for _ in range(args.repeat):
                began = time.perf_counter()
                client.get(url)
                for plot in plots:
                    client.get(plot.replace("&amp;", "&"))
                times.append((time.perf_counter() - began) * 1000)
            median, worst = statistics.median(times), max(times)
            over += [url] if median > TARGET_MS else []
            print(f"{username + ' ' + url:<58} {median:>10.0f} {worst:>8.0f}")
    print(f"pages over {TARGET_MS} ms (median): {len(over)}" + (f": {', '.join(over)}" if over else ""))


if __name__ == "__main__":
    main()
