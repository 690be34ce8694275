"""The API's JSON parser: DRF's, refusing JSON nested too deeply to parse (a 400 in the one error shape, not the
interpreter's recursion error as a 500), and JSON that would not mean what it says (`config.core.strict_json`: 1e400,
NaN, a key given twice)."""

import codecs

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from config.core import strict_json


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return strict_json.loads(codecs.getreader(encoding)(stream).read())
        except RecursionError as error:
            raise ParseError("JSON parse error - nested too deeply") from error
        except strict_json.StrictJSONError as error:
            raise ParseError(f"JSON parse error - {error}") from error
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from error
