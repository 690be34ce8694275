"""Machine judges measured against people: the statistics (core.py, pure), the reads behind the results page and API
(selectors), the page (views)."""
