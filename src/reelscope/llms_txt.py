"""``/llms.txt`` and ``/llms-full.txt``: the API described as plain text for AI assistants and scripts
(issue 30 item 3; the llms.txt convention: a title, a summary, then sections of links).

Both are generated from this server's own OpenAPI document (reference.py) the first time they are
asked for, and kept for the process: they list exactly the operations the server serves, with the
prices, limits and errors the contract applies, so they cannot drift from it. The specification's prose
lives outside this repository, so what they say beyond the operations is the document's own
description (reference.DESCRIPTION) and the error codes the server answers (kit/schemas.py).
"""

from __future__ import annotations

from typing import Any

from reelscope.kit.schemas import error_codes

LLMS_URL = "/llms.txt"
LLMS_FULL_URL = "/llms-full.txt"
_METHODS = ("get", "post", "put", "patch", "delete")
_REF = "#/components/schemas/"


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) of every operation of the document, in its order."""
    return [
        (method.upper(), path, item[method])
        for path, item in document.get("paths", {}).items()
        for method in _METHODS
        if method in item
    ]


def _by_tag(document: dict[str, Any]) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
    groups: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for method, path, operation in operations(document):
        groups.setdefault((operation.get("tags") or ["other"])[0], []).append((method, path, operation))
    return groups


def _price(operation: dict[str, Any]) -> str:
    cost = operation.get("x-cost")
    if cost is None:
        return "free, no key"
    if cost["credits"] == 0 and not cost["varies"]:
        return "free"
    return f"from ${cost['usd']}" if cost["varies"] else f"${cost['usd']}"


def _summary(operation: dict[str, Any]) -> str:
    text = operation.get("description") or operation.get("summary") or ""
    return " ".join(text.split("\n\n")[0].split())


def _title(document: dict[str, Any]) -> str:
    return str(document.get("info", {}).get("title", "API"))


def llms_txt(document: dict[str, Any]) -> str:
    """The short index: what the API is, then one line per operation with its price."""
    lines = [
        f"# {_title(document)}",
        "",
        "> Short-form video intelligence (TikTok, Instagram Reels, YouTube Shorts): digests, hashtags, "
        "trends, research agents, lookups, tracking, sounds, hooks and webhooks, over one JSON API. "
        "Every request but `GET /` sends `Authorization: Bearer <API key>`; paid operations take "
        "`?dry_run=true` to learn their price without paying.",
        "",
        f"Generated from this server's OpenAPI document; every operation it serves is listed. The full "
        f"text, with parameters, bodies and errors: [{LLMS_FULL_URL}]({LLMS_FULL_URL}).",
        "",
        "## Reference",
        "",
        "- [OpenAPI 3.0 document](/openapi.json): machine-readable, with `x-cost` and `x-rate-limit`",
        "- [Interactive reference](/docs)",
        f"- [Full plain-text reference]({LLMS_FULL_URL})",
    ]
    for tag, found in _by_tag(document).items():
        lines += ["", f"## {tag}", ""]
        for method, path, operation in found:
            anchor = f"{LLMS_FULL_URL}#{operation.get('operationId', '')}"
            lines.append(f"- [{method} {path}]({anchor}): {_summary(operation)} ({_price(operation)})")
    return "\n".join(lines) + "\n"


def llms_full_txt(document: dict[str, Any]) -> str:
    """Everything: the document's description, each operation in full, and the error codes."""
    schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
    lines = [f"# {_title(document)}", "", str(document.get("info", {}).get("description", "")).strip()]
    for tag, found in _by_tag(document).items():
        lines += ["", f"## {tag}"]
        for method, path, operation in found:
            lines += ["", f"### {method} {path}", "", f"operationId: {operation.get('operationId', '')}", ""]
            lines.append(str(operation.get("description") or operation.get("summary") or "").strip())
            parameters = operation.get("parameters", [])
            if parameters:
                lines += ["", "Parameters:"]
                lines += [_parameter(p) for p in parameters]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            if body:
                lines += ["", "Body (JSON):"]
                lines += _fields(body.get("schema", {}), schemas)
            lines += ["", "Responses:"]
            for status, response in operation.get("responses", {}).items():
                lines.append(f"- {status}: {' '.join(str(response.get('description', '')).split())}")
    lines += ["", "## Error codes", "", "Branch on `code`, never on `message`."]
    lines += [f"- {status}: {codes}" for status, codes in error_codes().items()]
    return "\n".join(lines) + "\n"


def _parameter(parameter: dict[str, Any]) -> str:
    schema = parameter.get("schema", {})
    required = ", required" if parameter.get("required") else ""
    description = " ".join(str(parameter.get("description", "")).split())
    return f"- {parameter['name']} ({parameter.get('in')}, {_type(schema)}{required})" + (
        f": {description}" if description else ""
    )


def _fields(schema: dict[str, Any], schemas: dict[str, Any]) -> list[str]:
    resolved = _resolve(schema, schemas)
    required = set(resolved.get("required", ()))
    fields = [
        f"- {name} ({_type(_resolve(field, schemas))}{', required' if name in required else ''})"
        + (f": {' '.join(str(field['description']).split())}" if field.get("description") else "")
        for name, field in resolved.get("properties", {}).items()
    ]
    return fields or [f"- {_type(resolved)}"]


def _resolve(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF):
        found: dict[str, Any] = schemas.get(ref.removeprefix(_REF), {})
        return found
    return schema


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).removeprefix(_REF)
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    if schema.get("type") == "array":
        return f"array of {_type(schema.get('items', {}))}"
    for combined in ("anyOf", "oneOf", "allOf"):
        if combined in schema:
            return " or ".join(_type(s) for s in schema[combined])
    return str(schema.get("type", "any"))
