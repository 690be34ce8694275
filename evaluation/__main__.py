"""Entry point of `python -m evaluation` (trec_eval-compatible evaluation of TREC files)."""

from evaluation.cli.trec_eval import main

raise SystemExit(main())
