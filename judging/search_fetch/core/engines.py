"""Engine adapters, pure: the request for one page of one query as plain data, and what an answer holds (each hit's
document id and score, the total). One adapter per protocol, registered by name; the transport is apart.

    elasticsearch, opensearch   POST {url}/{index}/_search, the body template's JSON with `from` and `size` added;
                                hits.hits[]._id and ._score, hits.total (a number, or {"value": N})
    solr                        GET {url}/select with the template's parameters and start, rows, fl=id,score,
                                wt=json; response.docs[].id and .score, response.numFound
    json                        any HTTP JSON API: method, URL and body templates (with {{from}}, {{size}} and
                                {{page}} for paging), the results list, each result's id and score picked by JMESPath
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import jmespath
from jmespath.exceptions import JMESPathError

from judging.search_fetch.core import templates

DEFAULT_TEMPLATES = {
    "elasticsearch": '{"query": {"multi_match": {"query": "{{query}}"}}}',
    "opensearch": '{"query": {"multi_match": {"query": "{{query}}"}}}',
    "solr": "q={{query}}\ndefType=edismax",
    "json": "",
}


class AnswerError(ValueError):
    """The engine's answer is not what its protocol says: the message names what is missing."""


@dataclass(frozen=True)
class Endpoint:
    """Everything a request depends on except the query's values and the secret (added as a header apart)."""

    engine: str
    url: str
    index: str = ""
    template: str = ""
    method: str = "POST"  # json engine only
    url_template: str = ""  # json engine only: the URL with placeholders
    results_path: str = ""  # json engine: JMESPath to the list of results
    id_path: str = "id"  # json engine: JMESPath, within a result, to its document id
    score_path: str = ""  # json engine: JMESPath, within a result, to its score (optional)
    max_page: int | None = None  # the engine's largest page
    display: tuple[tuple[str, str], ...] = ()  # (field, JMESPath within a hit): a new document's title and text


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    json: dict | list | None = None
    params: list[tuple[str, str]] | None = None
    headers: dict = field(default_factory=dict)

    def shown(self) -> dict:
        """The request as kept in a snapshot's recipe and shown by "test query" (headers never: they carry keys)."""
        return {"method": self.method, "url": self.url, "json": self.json, "params": self.params}


@dataclass(frozen=True)
class Hit:
    docid: str
    score: float | None
    fields: dict = field(default_factory=dict, compare=False)


def _display(endpoint: Endpoint, hit) -> dict:
    """The display fields a hit carries (texts only; a missing one is left out)."""
    found = {}
    for name, expression in endpoint.display:
        try:
            value = jmespath.search(expression, hit)
        except JMESPathError:
            continue
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if value is not None and not isinstance(value, dict):
            found[name] = str(value)
    return found


@dataclass(frozen=True)
class Page:
    hits: list[Hit]
    total: int | None = None


def _loaded(body: bytes):
    try:
        return json.loads(body)
    except ValueError as error:
        raise AnswerError("the answer is not JSON") from error


def _score(value) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _version_at(body: bytes, *path: str) -> str | None:
    """The version an engine's info answer states at `path`, or None (a version is never worth a failure)."""
    try:
        node = json.loads(body)
        for key in path:
            node = node[key]
    except (ValueError, KeyError, TypeError):
        return None
    return str(node)[:60] if isinstance(node, (str, int, float)) else None


class Elastic:
    FORM_FIELDS = ("index",)  # the endpoint's settings that apply to it (the form shows these alone)

    def version_request(self, endpoint: Endpoint) -> Request:
        return Request("GET", endpoint.url.rstrip("/") + "/")

    def version(self, body: bytes) -> str | None:
        return _version_at(body, "version", "number")

    def request(self, endpoint: Endpoint, values: Mapping[str, str], start: int, size: int) -> Request:
        body = templates.json_body(endpoint.template or DEFAULT_TEMPLATES["elasticsearch"], values)
        if not isinstance(body, dict):
            raise templates.TemplateError("the body template must be a JSON object")
        body = {**body, "from": start, "size": size}
        index = f"/{endpoint.index.strip('/')}" if endpoint.index else ""
        return Request("POST", f"{endpoint.url.rstrip('/')}{index}/_search", json=body)

    def parse(self, endpoint: Endpoint, body: bytes) -> Page:
        answer = _loaded(body)
        try:
            hits = answer["hits"]["hits"]
            total = answer["hits"].get("total")
        except (KeyError, TypeError, AttributeError) as error:
            raise AnswerError("no hits.hits in the answer") from error
        if isinstance(total, dict):
            total = total.get("value")
        found = []
        for hit in hits:
            if not isinstance(hit, dict) or "_id" not in hit:
                raise AnswerError("a hit without _id")
            found.append(Hit(str(hit["_id"]), _score(hit.get("_score")), _display(endpoint, hit)))
        return Page(found, total if isinstance(total, int) else None)


class Solr:
    FORM_FIELDS = ("index",)

    def version_request(self, endpoint: Endpoint) -> Request:
        return Request("GET", endpoint.url.rstrip("/") + "/admin/info/system", params=[("wt", "json")])

    def version(self, body: bytes) -> str | None:
        return _version_at(body, "lucene", "solr-spec-version")

    def request(self, endpoint: Endpoint, values: Mapping[str, str], start: int, size: int) -> Request:
        params = templates.parameters(endpoint.template or DEFAULT_TEMPLATES["solr"], values)
        reserved = {"start", "rows", "fl", "wt"}
        params = [(k, v) for k, v in params if k not in reserved]
        shown = [e for _, e in endpoint.display if e.isidentifier()]  # a stored field Solr can list
        params += [("start", str(start)), ("rows", str(size)), ("fl", ",".join(["id", "score", *shown])),
                   ("wt", "json")]  # fmt: skip
        core = f"/{endpoint.index.strip('/')}" if endpoint.index else ""
        return Request("GET", f"{endpoint.url.rstrip('/')}{core}/select", params=params)

    def parse(self, endpoint: Endpoint, body: bytes) -> Page:
        answer = _loaded(body)
        try:
            docs = answer["response"]["docs"]
            total = answer["response"].get("numFound")
        except (KeyError, TypeError, AttributeError) as error:
            raise AnswerError("no response.docs in the answer") from error
        found = []
        for doc in docs:
            if not isinstance(doc, dict) or "id" not in doc:
                raise AnswerError("a document without id (is it the index's unique key?)")
            docid = doc["id"][0] if isinstance(doc["id"], list) and doc["id"] else doc["id"]
            found.append(Hit(str(docid), _score(doc.get("score")), _display(endpoint, doc)))
        return Page(found, total if isinstance(total, int) else None)


class JsonApi:
    FORM_FIELDS = ("method", "results_path", "id_path", "score_path")

    def request(self, endpoint: Endpoint, values: Mapping[str, str], start: int, size: int) -> Request:
        paging = {"from": str(start), "size": str(size), "page": str(start // size + 1 if size else 1)}
        values = {**values, **paging}
        url = templates.url(endpoint.url_template or endpoint.url, values)
        body = templates.json_body(endpoint.template, values) if endpoint.template.strip() else None
        return Request(endpoint.method.upper(), url, json=body)

    def parse(self, endpoint: Endpoint, body: bytes) -> Page:
        answer = _loaded(body)
        try:
            results = jmespath.search(endpoint.results_path, answer) if endpoint.results_path else answer
            if not isinstance(results, list):
                raise AnswerError(f"{endpoint.results_path or 'the answer'} is not a list of results")
            found = []
            for result in results:
                docid = jmespath.search(endpoint.id_path or "id", result)
                if docid is None or isinstance(docid, (dict, list)):
                    raise AnswerError(f"a result whose {endpoint.id_path or 'id'} is no document id")
                score = jmespath.search(endpoint.score_path, result) if endpoint.score_path else None
                found.append(Hit(str(docid), _score(score), _display(endpoint, result)))
        except JMESPathError as error:
            raise AnswerError(f"a JMESPath expression failed: {error}") from error
        return Page(found)

    @staticmethod
    def pages(endpoint: Endpoint) -> bool:
        """Whether the templates page at all (a template without {{from}}, {{size}} or {{page}} is one page)."""
        used = templates.placeholders(endpoint.url_template or endpoint.url) | templates.placeholders(endpoint.template)
        return bool(used & {"from", "size", "page"})


ENGINES = {"elasticsearch": Elastic(), "opensearch": Elastic(), "solr": Solr(), "json": JsonApi()}


def expression_problem(expression: str) -> str | None:
    """Why a JMESPath expression does not compile (None when it does)."""
    try:
        jmespath.compile(expression)
    except JMESPathError as error:
        return f"not a JMESPath expression: {error}"
    return None
