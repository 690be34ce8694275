"""The API's JSON parser: DRF's, refusing JSON nested too deeply to parse (a 400 in the one error shape, not the
interpreter's recursion error as a 500)."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError("JSON parse error - nested too deeply") from error
