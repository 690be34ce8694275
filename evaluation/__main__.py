"""Entry point of `python -m evaluation` (trec_eval-compatible evaluation of TREC files)."""

from evaluation.cli import main

raise SystemExit(main())
