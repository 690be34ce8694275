"""Agreement between assessors and between the system rankings their labels give: the statistics (core.py, pure; kappa
and alpha live in measures.agreement), the reliability table and assessor groups (reads), the pages, and `python -m
evaluation.agreement`."""
