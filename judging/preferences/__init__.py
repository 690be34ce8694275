"""Preference judging: two documents compared side by side. core.py (pure) is the tournament that picks the next pair;
services record and undo a comparison; selectors read a topic's candidates and standing."""
