"""Pure parts of search fetching: no Django, no database."""
