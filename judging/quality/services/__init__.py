"""Writes of the quality feature: checks scheduled and answered (checks), and pauses decided, lifted or acted on
(pauses)."""
