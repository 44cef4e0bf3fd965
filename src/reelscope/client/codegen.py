"""Writes ``models.py`` and ``operations.py`` of the client from the served ``/openapi.json``.

    python -m reelscope.client.codegen          # from the app in this checkout (no server needed)

The OpenAPI document is the contract; the client is generated from it rather than written twice, and
``tests/client/test_drift.py`` fails when the committed output no longer matches the document (paths,
methods, parameters, response fields). The rendering is a pure function of the document; only
``main`` builds the app, so importing the client never imports the server.

Left out: ``GET /`` (not under ``/v1``), the legacy ``/v1/orbit`` and ``/v1/comet`` aliases (§4.5, the
same operations as ``/v1/agents``; removed on 2026-08-03) and ``dry_run`` (beyond the spec; its answer
is another shape, ADR 0047).
"""

from __future__ import annotations

import keyword
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Schema = dict[str, Any]
LEGACY_PREFIXES = ("/v1/orbit", "/v1/comet")
NOT_SENT_PARAMETERS = frozenset({"dry_run"})
PAGING_PARAMETERS = frozenset({"page", "offset", "cursor"})
PROVIDED_BY_BASE = frozenset({"Pagination"})  # hand-written in base.py, checked like the others
METHODS = ("get", "post", "put", "patch", "delete")
SHADOWED = frozenset({"json", "copy", "dict", "schema", "validate", "construct", "fields"})
WIDTH = 100


@dataclass(frozen=True)
class Endpoint:
    path: str
    method: str
    operation: Schema


@dataclass
class Renderer:
    doc: Schema
    schemas: Schema = field(init=False)
    needed: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.schemas = self.doc["components"]["schemas"]

    # ---- names and types --------------------------------------------------------------------

    def class_name(self, name: str) -> str:
        """``reelscope__lookup__schemas__RunList`` → ``LookupRunList``; other names as they are."""
        match = re.fullmatch(r"reelscope__([a-z_]+?)__schemas__(\w+)", name)
        if match is None:
            return name
        family, title = match.group(1), match.group(2)
        return title if title.lower().startswith(family) else family.capitalize() + title

    def resolve(self, schema: Schema) -> tuple[str | None, Schema]:
        """The component a schema points to (through ``allOf``/``anyOf`` with null), and its body."""
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            return name, self.schemas[name]
        for combinator in ("allOf", "anyOf"):
            members = [m for m in schema.get(combinator, []) if m.get("type") != "null"]
            if len(members) == 1:
                return self.resolve(members[0])
        return None, schema

    def wrapper(self, name: str) -> str | None:
        """``Envelope[...]`` or ``Page[...]`` for the generic wrappers the server's document spells out."""
        schema = self.schemas[name]
        title, props = schema.get("title", ""), set(schema.get("properties", {}))
        if title.startswith("Envelope[") and props == {"data"}:
            return f"Envelope[{self.type_of(schema['properties']['data'])}]"
        if title.startswith("Page[") and props == {"data", "pagination"}:
            return f"Page[{self.type_of(schema['properties']['data']['items'])}]"
        return None

    def type_of(self, schema: Schema) -> str:
        nullable = schema.get("nullable", False) or any(
            m.get("type") == "null" for m in schema.get("anyOf", [])
        )
        text = self._type_of(schema)
        return f"{text} | None" if nullable and text != "Any" and not text.endswith("| None") else text

    def _type_of(self, schema: Schema) -> str:
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            wrapped = self.wrapper(name)
            if wrapped is not None:
                return wrapped
            if name in PROVIDED_BY_BASE:
                return str(name)
            self.needed.add(name)
            return self.class_name(name)
        for combinator in ("allOf", "anyOf", "oneOf"):
            if combinator in schema:
                members = [self._type_of(m) for m in schema[combinator] if m.get("type") != "null"]
                return " | ".join(dict.fromkeys(members)) if members else "Any"
        if "enum" in schema:
            return "Literal[" + ", ".join(repr(value) for value in schema["enum"]) + "]"
        kind = schema.get("type")
        if kind == "array":
            return f"list[{self.type_of(schema.get('items', {}))}]"
        if kind == "object" or "additionalProperties" in schema:
            extra = schema.get("additionalProperties")
            value = self.type_of(extra) if isinstance(extra, dict) and extra else "Any"
            return f"dict[str, {value}]"
        return {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}.get(
            kind or "", "Any"
        )

    # ---- operations -------------------------------------------------------------------------

    def endpoints(self) -> list[Endpoint]:
        found = []
        for path, item in self.doc["paths"].items():
            if not path.startswith("/v1/") or path.startswith(LEGACY_PREFIXES):
                continue
            for method in METHODS:
                if method in item:
                    found.append(Endpoint(path, method.upper(), item[method]))
        return found

    def success(self, endpoint: Endpoint) -> tuple[int, Schema | None]:
        """The call's own success answer: not the 200 of ``dry_run=true`` (beyond the spec, ADR 0047)."""
        responses = endpoint.operation["responses"]
        for code in sorted(int(c) for c in responses if c.startswith("2")):
            schema = responses[str(code)].get("content", {}).get("application/json", {}).get("schema")
            if schema is not None and "anyOf" in schema:
                members = [m for m in schema["anyOf"] if not _is_dry_run(m)]
                schema = members[0] if len(members) == 1 else schema
            if schema is None or not _is_dry_run(schema):
                return code, schema
        raise ValueError(f"{endpoint.method} {endpoint.path} has no success answer")

    def returns(self, endpoint: Endpoint) -> str:
        _code, schema = self.success(endpoint)
        if schema is None:
            return "NoContent"
        if schema.get("type") == "array":
            return f"ListResponse[{self.type_of(schema['items'])}]"
        return self.type_of(schema)

    def body(self, endpoint: Endpoint) -> tuple[Schema, bool]:
        """The request body's properties (resolved) and whether the body itself is required."""
        content = endpoint.operation.get("requestBody", {}).get("content", {})
        schema = content.get("application/json", {}).get("schema")
        if schema is None:
            return {}, False
        _name, resolved = self.resolve(schema)
        return resolved, bool(endpoint.operation["requestBody"].get("required"))

    def parameters(self, endpoint: Endpoint, where: str) -> list[Schema]:
        return [
            p
            for p in endpoint.operation.get("parameters", [])
            if p["in"] == where and p["name"] not in NOT_SENT_PARAMETERS
        ]

    def idempotent(self, endpoint: Endpoint) -> bool:
        return any(
            p["in"] == "header" and p["name"] == "Idempotency-Key"
            for p in endpoint.operation.get("parameters", [])
        )

    def page_style(self, endpoint: Endpoint) -> tuple[str, str | None, str] | None:
        """(style, items field, item type) of a paged list (§8.3), or None."""
        query = {p["name"] for p in self.parameters(endpoint, "query")}
        _code, schema = self.success(endpoint)
        if schema is None or not query & PAGING_PARAMETERS:
            return None
        _name, body = self.resolve(schema)
        props = body.get("properties", {})
        if "cursor" in query:
            field_name = _array_field(props)
            return "cursor", field_name, self.type_of(props[field_name]["items"])
        if "pagination" in props:
            return "pagination", None, self.type_of(props["data"]["items"])
        data = self.resolve(props["data"])[1] if "data" in props else {}
        data_props = data.get("properties", {})
        if "offset" in query and "page" not in query and "has_more" in data_props:
            field_name = _array_field(data_props)
            return "offset", field_name, self.type_of(data_props[field_name]["items"])
        if "page" in query and "count" in data_props:
            field_name = _array_field(data_props)
            return "short_page", field_name, self.type_of(data_props[field_name]["items"])
        if "page" in query and "total" in data_props:
            field_name = _array_field(data_props)
            return "empty_page", field_name, self.type_of(data_props[field_name]["items"])
        return None


def _is_dry_run(schema: Schema) -> bool:
    return str(schema.get("$ref", "")).endswith("/DryRunAnswer")


def _array_field(props: Schema) -> str:
    arrays = [name for name, schema in props.items() if schema.get("type") == "array"]
    if len(arrays) != 1:
        raise ValueError(f"a paged list has exactly one array field, not {arrays}")
    return arrays[0]


def python_name(name: str) -> str:
    return f"{name}_" if keyword.iskeyword(name) or name in SHADOWED else name


def doc_lines(text: str, indent: str) -> list[str]:
    """A docstring's lines, wrapped, without trailing spaces or triple quotes."""
    out: list[str] = []
    for paragraph in text.replace('"""', "'''").replace("\\", "\\\\").strip().split("\n\n"):
        joined = " ".join(line.strip() for line in paragraph.splitlines())
        out += textwrap.wrap(joined, WIDTH - len(indent)) or [""]
        out.append("")
    return out[:-1]


def docstring(text: str, indent: str) -> list[str]:
    lines = doc_lines(text, indent)
    if not lines:
        return []
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [
        f'{indent}"""{lines[0]}',
        *[f"{indent}{line}" if line else "" for line in lines[1:]],
        f'{indent}"""',
    ]


def string_literal(text: str, indent: str) -> str:
    """A long string as implicitly joined pieces, each short enough for the line length."""
    if len(indent) + len("description=") + len(repr(text)) + 1 <= WIDTH:
        return repr(text)
    pieces = textwrap.wrap(text, WIDTH - len(indent) - 20, drop_whitespace=False, replace_whitespace=False)
    return "(\n" + "\n".join(f"{indent}    {piece!r}" for piece in pieces) + f"\n{indent})"


def operation_doc(operation: Schema) -> str:
    """The operation's description without its rate-limit paragraph (the limits live in the server)."""
    text = str(operation.get("description") or operation.get("summary") or "")
    paragraphs = text.strip().split("\n\n")
    return "\n\n".join(p for p in paragraphs if not p.startswith("**Rate limit**"))


# ---- models.py ------------------------------------------------------------------------------


def render_models(doc: Schema) -> str:
    renderer = Renderer(doc)
    for endpoint in renderer.endpoints():
        renderer.returns(endpoint)
        props, _required = renderer.body(endpoint)
        for schema in props.get("properties", {}).values():
            renderer.type_of(schema)
        for where in ("path", "query"):
            for parameter in renderer.parameters(endpoint, where):
                renderer.type_of(parameter["schema"])
    rendered: dict[str, list[str]] = {}
    aliases: dict[str, str] = {}
    pending = list(renderer.needed)
    while pending:
        name = pending.pop()
        if name in rendered or name in aliases:
            continue
        before = set(renderer.needed)
        schema = renderer.schemas[name]
        if "properties" in schema:
            rendered[name] = render_class(renderer, name, schema)
        elif "enum" in schema:
            aliases[name] = renderer._type_of(schema)
        else:
            value = renderer.type_of(schema) if schema else "Any"
            aliases[name] = "dict[str, Any]" if value == "Any" and schema.get("type") == "object" else value
        pending += sorted(renderer.needed - before)
    lines = [
        '"""Response and request models of the Reelscope API, generated from ``/openapi.json`` by',
        "``python -m reelscope.client.codegen``; do not edit by hand (tests/client/test_drift.py",
        "checks them).",
        "",
        "Field names are the spec's snake_case; unknown fields are kept (``model_extra``), as §9 asks.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, Literal",
        "",
        "from reelscope.client.base import ApiModel, Envelope, ListResponse, NoContent, Page, Pagination",
        "",
        "__all__ = [",
        *[f'    "{n}",' for n in sorted(["Envelope", "ListResponse", "NoContent", "Page", "Pagination"])],
        *[f'    "{renderer.class_name(n)}",' for n in sorted(aliases, key=renderer.class_name)],
        *[f'    "{renderer.class_name(n)}",' for n in sorted(rendered, key=renderer.class_name)],
        "]",
        "",
    ]
    for name in sorted(aliases, key=renderer.class_name):
        lines.append(f"{renderer.class_name(name)} = {aliases[name]}")
    for name in _dependency_order(renderer, rendered):
        lines += ["", "", *rendered[name]]
    return "\n".join(lines) + "\n"


def render_class(renderer: Renderer, name: str, schema: Schema) -> list[str]:
    lines = [f"class {renderer.class_name(name)}(ApiModel):"]
    description = schema.get("description") or schema.get("title", name)
    lines += docstring(description, "    ")
    lines += ["", f'    __schema_name__ = "{name}"', ""]
    required = set(schema.get("required", []))
    for prop, prop_schema in schema["properties"].items():
        annotation = renderer.type_of(prop_schema)
        attribute = python_name(prop)
        alias = f"Field(alias={prop!r})" if attribute != prop else None
        if prop in required:
            default = f" = {alias}" if alias else ""
        else:
            if not annotation.endswith("| None") and annotation != "Any":
                annotation += " | None"
            default = f" = Field(default=None, alias={prop!r})" if alias else " = None"
        lines.append(f"    {attribute}: {annotation}{default}")
    return lines


def _dependency_order(renderer: Renderer, rendered: dict[str, list[str]]) -> Iterator[str]:
    """Classes after the classes their fields name, so every annotation resolves when it is built."""
    done: set[str] = set()

    def deps(name: str) -> set[str]:
        text = "\n".join(rendered[name][1:])
        return {n for n in rendered if n != name and re.search(rf"\b{renderer.class_name(n)}\b", text)}

    def visit(name: str, path: tuple[str, ...]) -> Iterator[str]:
        if name in done or name in path:
            return
        for dep in sorted(deps(name)):
            yield from visit(dep, (*path, name))
        done.add(name)
        yield name

    for name in sorted(rendered, key=renderer.class_name):
        yield from visit(name, ())


# ---- operations.py --------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    name: str  # on the wire
    attribute: str  # in Python
    annotation: str
    required: bool
    where: str  # path, query, body

    def signature(self) -> str:
        if self.required:
            return f"{self.attribute}: {self.annotation}"
        annotation = self.annotation if self.annotation.endswith("| None") else f"{self.annotation} | None"
        return f"{self.attribute}: {annotation} = None"


def params_of(renderer: Renderer, endpoint: Endpoint) -> list[Param]:
    found = [
        Param(p["name"], python_name(p["name"]), renderer.type_of(p["schema"]), True, "path")
        for p in renderer.parameters(endpoint, "path")
    ]
    found += [
        Param(
            p["name"], python_name(p["name"]), renderer.type_of(p["schema"]), bool(p.get("required")), "query"
        )
        for p in renderer.parameters(endpoint, "query")
    ]
    body, body_required = renderer.body(endpoint)
    required = set(body.get("required", [])) if body_required else set()
    found += [
        Param(name, python_name(name), renderer.type_of(schema), name in required, "body")
        for name, schema in body.get("properties", {}).items()
    ]
    return found


def render_method(renderer: Renderer, endpoint: Endpoint, asynchronous: bool) -> list[str]:
    name = endpoint.operation["operationId"]
    params = params_of(renderer, endpoint)
    returns = renderer.returns(endpoint)
    positional = [p.signature() for p in params if p.where == "path"]
    keywords = [p.signature() for p in params if p.where != "path" and p.required]
    keywords += [p.signature() for p in params if p.where != "path" and not p.required]
    signature = ["self", *positional, *(["*", *keywords] if keywords else [])]
    prefix = "async def" if asynchronous else "def"
    lines = [f"    {prefix} {name}(", *[f"        {s}," for s in signature], f"    ) -> {returns}:"]
    lines += docstring(operation_doc(endpoint.operation), "        ")
    has_body = "requestBody" in endpoint.operation

    def mapping(where: str) -> str:
        items = [f'"{p.name}": {p.attribute}' for p in params if p.where == where]
        return "{" + ", ".join(items) + "}"

    call = [
        f'{endpoint.method!r}, "{endpoint.path}"',
        f"path_params={mapping('path')}",
        f"query={mapping('query')}",
        f"body={mapping('body') if has_body else None}",
        f"idempotent={renderer.idempotent(endpoint)}",
    ]
    awaited = "await " if asynchronous else ""
    lines += [
        f"        return {awaited}self._call(",
        f"            Call({', '.join(call)}),",
        f"            {returns},",
        "        )",
    ]
    return lines


def iterator_name(name: str) -> str:
    for prefix in ("list_", "get_"):
        if name.startswith(prefix):
            return "iter_" + name.removeprefix(prefix)
    return "iter_" + name


def render_iterator(renderer: Renderer, endpoint: Endpoint, asynchronous: bool) -> list[str]:
    style = renderer.page_style(endpoint)
    if style is None:
        return []
    kind, items, item_type = style
    name = endpoint.operation["operationId"]
    params = [p for p in params_of(renderer, endpoint) if p.name not in PAGING_PARAMETERS]
    positional = [p.signature() for p in params if p.where == "path"]
    keywords = [p.signature() for p in params if p.where != "path"]
    signature = ["self", *positional, *(["*", *keywords] if keywords else [])]
    iterator = "AsyncIterator" if asynchronous else "Iterator"
    arguments = ", ".join(
        [
            *(p.attribute for p in params if p.where == "path"),
            *(f"{p.attribute}={p.attribute}" for p in params if p.where != "path"),
            "**paging",
        ]
    )
    page_type = renderer.returns(endpoint)
    fetch = (
        f"async def page(**paging: Any) -> {page_type}:"
        if asynchronous
        else f"def page(**paging: Any) -> {page_type}:"
    )
    awaited = "await " if asynchronous else ""
    driver = "aiterate" if asynchronous else "iterate"
    style_args = f'"{kind}"' + (f', "{items}"' if items else "")
    return [
        "",
        f"    def {iterator_name(name)}(",
        *[f"        {s}," for s in signature],
        f"    ) -> {iterator}[{item_type}]:",
        f'        """Every item of ``{name}``, page after page ({kind.replace("_", " ")} style, §8.3)."""',
        "",
        f"        {fetch}",
        f"            return {awaited}self.{name}({arguments})",
        "",
        f"        return {driver}(page, PageStyle({style_args}))",
    ]


HEADER = [
    '"""{title}, generated from ``/openapi.json`` by',
    "``python -m reelscope.client.codegen``; do not edit by hand (tests/client/test_drift.py",
    "checks them). {more}",
    '"""',
    "",
    "from __future__ import annotations",
    "",
]


def header(title: str, more: str) -> list[str]:
    return [line.format(title=title, more=more) for line in HEADER]


def render_table(doc: Schema) -> str:
    """``OPERATIONS``: each operation's path, description, price and pagination, for tools built on the
    client (the MCP server)."""
    renderer = Renderer(doc)
    lines = [
        *header("Every operation of the Reelscope API the client serves", ""),
        "from dataclasses import dataclass",
        "",
        "",
        "@dataclass(frozen=True)",
        "class Operation:",
        '    """One operation of ``/openapi.json``: price in dollars (``x-cost``), or if it varies."""',
        "",
        "    name: str",
        "    method: str",
        "    path: str",
        "    summary: str",
        "    description: str",
        "    price_usd: str",
        "    price_varies: bool",
        "    idempotent: bool",
        "    deprecated: bool",
        "    paged: str | None",
        "",
        "",
        "OPERATIONS: dict[str, Operation] = {",
    ]
    for endpoint in renderer.endpoints():
        op = endpoint.operation
        cost = op.get("x-cost", {})
        style = renderer.page_style(endpoint)
        lines += [
            f'    "{op["operationId"]}": Operation(',
            f'        name="{op["operationId"]}",',
            f'        method="{endpoint.method}",',
            f'        path="{endpoint.path}",',
            f"        summary={op.get('summary', '')!r},",
            f"        description={string_literal(operation_doc(op), '        ')},",
            f'        price_usd="{cost.get("usd", "0.00")}",',
            f"        price_varies={bool(cost.get('varies', False))},",
            f"        idempotent={renderer.idempotent(endpoint)},",
            f"        deprecated={bool(op.get('deprecated', False))},",
            f"        paged={style[0]!r}," if style else "        paged=None,",
            "    ),",
        ]
    return "\n".join([*lines, "}"]) + "\n"


def render_client(doc: Schema, *, asynchronous: bool) -> str:
    """``SyncOperations`` or ``AsyncOperations``: each operation a method, an ``iter_*`` per paged list."""
    renderer = Renderer(doc)
    cls, base = ("AsyncOperations", "AsyncCore") if asynchronous else ("SyncOperations", "SyncCore")
    body = [
        f"class {cls}({base}):",
        f'    """Each operation a{"n async" if asynchronous else ""} method; ``iter_*`` per paged list."""',
    ]
    for endpoint in renderer.endpoints():
        body += ["", *render_method(renderer, endpoint, asynchronous)]
        body += render_iterator(renderer, endpoint, asynchronous)
    text = "\n".join(body) + "\n"
    names = {renderer.class_name(n) for n in renderer.needed} | {
        "Envelope",
        "ListResponse",
        "NoContent",
        "Page",
    }
    used = sorted(n for n in names if re.search(rf"\b{n}\b", text))
    iterator = "AsyncIterator" if asynchronous else "Iterator"
    driver = "aiterate" if asynchronous else "iterate"
    lines = [
        *header(
            "Every operation of the Reelscope API as a method",
            "The client people use is ``Reelscope``/``AsyncReelscope`` (clients.py), which adds the waiters.",
        ),
        f"from collections.abc import {iterator}",
        "from typing import Any, Literal",
        "",
        f"from reelscope.client.core import {base}, Call",
        "from reelscope.client.models import (",
        *[f"    {n}," for n in used],
        ")",
        f"from reelscope.client.pagination import PageStyle, {driver}",
        "",
        "",
    ]
    return "\n".join(lines) + "\n" + text


# ---- the command ----------------------------------------------------------------------------


def served_document() -> Schema:
    """``/openapi.json`` as the app in this checkout serves it (the server's modules, imported here only)."""
    import asyncio
    import tempfile
    from datetime import UTC, datetime

    import httpx

    from reelscope.config import Settings
    from reelscope.kit.clock import ManualClock
    from reelscope.main import create_app
    from reelscope.runtime import build_runtime

    async def fetch() -> Schema:
        with tempfile.TemporaryDirectory() as directory:
            settings = Settings(data_dir=Path(directory), database_url=f"sqlite+aiosqlite:///{directory}/db")
            runtime = build_runtime(settings, ManualClock(datetime.now(UTC)))
            transport = httpx.ASGITransport(app=create_app(runtime=runtime))
            try:
                async with httpx.AsyncClient(transport=transport, base_url="http://codegen") as http:
                    document: Schema = (await http.get("/openapi.json")).raise_for_status().json()
            finally:
                await runtime.close()
            return document

    return asyncio.run(fetch())


def main() -> None:
    document = served_document()
    here = Path(__file__).parent
    outputs = {
        here / "models.py": render_models(document),
        here / "operations.py": render_table(document),
        here / "sync_api.py": render_client(document, asynchronous=False),
        here / "async_api.py": render_client(document, asynchronous=True),
    }
    for path, text in outputs.items():
        path.write_text(text)
    files = [str(path) for path in outputs]
    ruff = [sys.executable, "-m", "ruff"]
    subprocess.run([*ruff, "format", "--quiet", *files], check=True)  # noqa: S603
    subprocess.run([*ruff, "check", "--fix", "--quiet", *files], check=True)  # noqa: S603
    subprocess.run([*ruff, "format", "--quiet", *files], check=True)  # noqa: S603
    print("wrote", *files)


if __name__ == "__main__":
    main()
