"""The rules of the codebase as tests: run them alone with `pytest tests/rules`."""
