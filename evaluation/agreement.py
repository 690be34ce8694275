"""`python -m evaluation.agreement JUDGMENTS`: a JSON agreement report per topic and overall (`agreement_cli`).
The statistics themselves are `measures.agreement`'s, pure and shared by both apps."""

if __name__ == "__main__":
    from evaluation.agreement_cli import main

    raise SystemExit(main())
