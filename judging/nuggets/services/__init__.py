"""Writes of nuggets (`nuggets`), of their assignments to answers (`assignments`), and the machine's proposals and
assignments as jobs (`machine`)."""
