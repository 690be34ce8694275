"""Entry point of `python -m evaluation` (trec_eval-compatible evaluation of TREC files)."""

from evaluation.cli.memory import keep_freed_memory

keep_freed_memory()  # before numpy and pyarrow allocate anything

from evaluation.cli.trec_eval import main  # noqa: E402

raise SystemExit(main())
