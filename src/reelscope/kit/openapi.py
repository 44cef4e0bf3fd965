"""FastAPI emits OpenAPI 3.1; the spec promises a 3.0 description (§9). This converts the document.

No maintained library does the 3.1 → 3.0 downgrade for FastAPI output (ADR 0003). The differences
that FastAPI's output actually uses are few: ``anyOf`` with ``{"type": "null"}`` becomes
``nullable``, ``const`` becomes a one-value ``enum``, numeric ``exclusiveMinimum``/``Maximum`` become
the boolean form, ``examples`` arrays become one ``example``, and a few 3.1-only keys are dropped.
"""

from __future__ import annotations

import re
from typing import Any

_DROPPED_KEYS = {"$schema", "contentMediaType", "contentEncoding", "unevaluatedProperties", "$id", "$anchor"}


def to_openapi_30(document: dict[str, Any]) -> dict[str, Any]:
    converted: dict[str, Any] = _convert(document)
    converted["openapi"] = "3.0.3"
    converted.pop("jsonSchemaDialect", None)
    converted.pop("webhooks", None)
    return converted


def _convert(node: Any) -> Any:
    if isinstance(node, list):
        return [_convert(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {k: v for k, v in node.items() if k not in _DROPPED_KEYS}

    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if isinstance(options, list) and any(_is_null(o) for o in options):
            rest = [o for o in options if not _is_null(o)]
            node.pop(key)
            if len(rest) == 1:
                only = rest[0]
                if "$ref" in only:
                    # a $ref cannot carry siblings in 3.0; wrap it
                    node["allOf"] = [only]
                else:
                    node.update(only)
            else:
                node[key] = rest
            node["nullable"] = True

    node_type = node.get("type")
    if isinstance(node_type, list):
        kinds = [t for t in node_type if t != "null"]
        if len(kinds) != len(node_type):
            node["nullable"] = True
        node["type"] = kinds[0] if len(kinds) == 1 else kinds[0] if kinds else "string"
    if node.get("type") == "null":
        node.pop("type")
        node["nullable"] = True

    if "const" in node:
        node["enum"] = [node.pop("const")]
    for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        value = node.get(bound)
        if isinstance(value, int | float) and not isinstance(value, bool):
            node[plain] = value
            node[bound] = True
    if "examples" in node and isinstance(node["examples"], list):
        examples = node.pop("examples")
        if examples:
            node["example"] = examples[0]

    if "$ref" in node and len(node) > 1:
        ref = node.pop("$ref")
        node["allOf"] = [{"$ref": ref}]

    return {key: _convert(value) for key, value in node.items()}


def _is_null(option: Any) -> bool:
    return isinstance(option, dict) and option.get("type") == "null" and len(option) == 1


_SCHEMA_REF = re.compile(r"#/components/schemas/([^/]+)$")


def drop_response(document: dict[str, Any], status: str) -> None:
    """Remove one response status from every operation, in place, with the component schemas only it
    used. For a status the app never sends, such as FastAPI's 422 when validation errors are rendered
    another way."""
    for item in document.get("paths", {}).values():
        for operation in item.values():
            if isinstance(operation, dict):
                operation.get("responses", {}).pop(status, None)
    _drop_unreferenced_schemas(document)


def _drop_unreferenced_schemas(document: dict[str, Any]) -> None:
    schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
    outside = {k: v for k, v in document.items() if k != "components"}
    outside_components = {k: v for k, v in document.get("components", {}).items() if k != "schemas"}
    reachable: set[str] = set()
    pending = _schema_refs(outside) | _schema_refs(outside_components)
    while pending:
        name = pending.pop()
        if name in reachable or name not in schemas:
            continue
        reachable.add(name)
        pending |= _schema_refs(schemas[name])
    for name in [n for n in schemas if n not in reachable]:
        del schemas[name]


def _schema_refs(node: Any) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            ref = current.get("$ref")
            if isinstance(ref, str) and (match := _SCHEMA_REF.match(ref)):
                found.add(match.group(1))
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return found
