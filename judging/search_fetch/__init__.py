"""Runs from live search engines: endpoints (Elasticsearch, OpenSearch, Solr, any JSON API), query sets fetched as
jobs into snapshots (a run with its recipe), and snapshots compared over time. core/ is pure: templates, engine
adapters, the fetching loop and the run file; the command line is `python -m judging.search_fetch`."""
