"""Nuggets: the facts a topic's good answer must hold, written or post-edited by people (with history) or proposed
by a machine, and their assignment to answers (support, partial support, no support) by assessors and machines."""
