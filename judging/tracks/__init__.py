"""Tracks with participants: teams submit runs inside a window, each checked at once and receipted; organizers pool
them by priority and release the results."""
