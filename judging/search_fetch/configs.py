"""A stored endpoint as the pure core reads it (its Endpoint, its Policy, its auth header), and the checks that
refuse a configuration that could not run, naming the field. Shared by the services (saving, fetching) and the
selectors (a test query)."""

from __future__ import annotations

import base64
from pathlib import Path
from urllib.parse import urlparse

from django.core.exceptions import ValidationError

from config.core.outbound import url_problem
from config.core.secrets import secret_name_problem, secret_value
from judging.search_fetch.core import templates
from judging.search_fetch.core.engines import ENGINES, Endpoint, expression_problem
from judging.search_fetch.core.fetch import Policy
from judging.search_fetch.models import Auth, SearchEndpoint

SETTINGS = (
    "engine", "url", "index", "method", "template", "results_path", "id_path", "score_path", "title_path", "body_path",
    "variables", "auth", "auth_header", "secret_env", "ca_bundle", "depth", "page_size", "concurrency", "rate",
    "timeout", "retries", "schedule_hours", "alert_measure", "alert_drop",
)  # fmt: skip
SAMPLE_VALUES = {"query": 'a "sample" query', "description": "", "narrative": ""}


def endpoint_of(endpoint: SearchEndpoint) -> Endpoint:
    display = tuple(
        (name, path) for name, path in (("title", endpoint.title_path), ("body", endpoint.body_path)) if path
    )
    json_engine = endpoint.engine == "json"
    return Endpoint(
        engine=endpoint.engine, url="" if json_engine else endpoint.url, index=endpoint.index,
        template=endpoint.template, method=endpoint.method, url_template=endpoint.url if json_engine else "",
        results_path=endpoint.results_path, id_path=endpoint.id_path, score_path=endpoint.score_path, display=display,
    )  # fmt: skip


def policy_of(endpoint: SearchEndpoint, **overrides) -> Policy:
    settings = {"depth": endpoint.depth, "page_size": endpoint.page_size, "timeout": endpoint.timeout,
                "retries": endpoint.retries, "concurrency": endpoint.concurrency, "rate": endpoint.rate}  # fmt: skip
    return Policy(**(settings | overrides))


def auth_headers(endpoint: SearchEndpoint) -> dict:
    """The header carrying the secret (never stored, shown or logged)."""
    if endpoint.auth == Auth.NONE or not endpoint.secret_env:
        return {}
    value = secret_value(endpoint.secret_env)
    if endpoint.auth == Auth.BASIC:
        return {"Authorization": "Basic " + base64.b64encode(value.encode()).decode()}
    if endpoint.auth == Auth.BEARER:
        return {"Authorization": f"Bearer {value}"}
    return {endpoint.auth_header: value}


def values_for(topic, variables: dict) -> dict:
    return {**{k: str(v) for k, v in variables.items()}, "query": topic.title, "description": topic.description,
            "narrative": topic.narrative}  # fmt: skip


def checked(endpoint: SearchEndpoint) -> None:
    """Refuses a configuration that could not run, naming the field (ValidationError)."""
    if endpoint.engine not in ENGINES:
        raise ValidationError({"engine": f"choose one of {', '.join(ENGINES)}"})
    raw = endpoint.variables if isinstance(endpoint.variables, dict) else {}
    values = SAMPLE_VALUES | {k: str(v) for k, v in raw.items()}
    try:
        target = templates.url(endpoint.url or "", values | {"from": "0", "size": "1", "page": "1"})
    except templates.TemplateError as error:
        raise ValidationError({"url": str(error)}) from error
    parsed = urlparse(target)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValidationError({"url": "give the engine's http(s) URL, e.g. https://search.example.org:9200"})
    if parsed.username or parsed.password:
        raise ValidationError({"url": "put no credentials in the URL; choose an auth and name a secret variable"})
    problem = url_problem(target)
    if problem:
        raise ValidationError({"url": problem})
    if not isinstance(endpoint.variables, dict) or not all(
        isinstance(k, str) and k.isidentifier() and isinstance(v, (str, int, float))
        for k, v in endpoint.variables.items()
    ):
        raise ValidationError({"variables": "give {name: value} with names like boost_title"})
    if endpoint.auth != Auth.NONE:
        problem = secret_name_problem(endpoint.secret_env or "")
        if problem:
            raise ValidationError({"secret_env": problem})
    if endpoint.ca_bundle and not Path(endpoint.ca_bundle).is_file():
        raise ValidationError({"ca_bundle": "no such file on the server"})
    for field in ("results_path", "id_path", "score_path", "title_path", "body_path"):
        expression = getattr(endpoint, field)
        if expression and (problem := expression_problem(expression)):
            raise ValidationError({field: problem})
    try:
        ENGINES[endpoint.engine].request(endpoint_of(endpoint), values, 0, 1)
    except templates.TemplateError as error:
        raise ValidationError({"template": str(error)}) from error
    try:
        endpoint.full_clean(exclude=["collection"])
    except ValidationError as error:
        raise ValidationError(error.message_dict) from error
