"""The spec check: every exchange an Atlas simulator of the suite had, against MongoDB's own
description of the Atlas Admin API v2 (``tests/fixtures/atlas-openapi/spec.json``, an extract
of its OpenAPI specification, with its provenance).

(Over 600 lines: one check, run as a script by ``make rust-test``, whose parts, the request's,
the answer's values and its fields, read the specification's schemas the same way.)

Every Atlas simulator started while ``OPSAPI_SIM_EXCHANGES`` names a folder records its
exchanges there (``src/sim/server/exchanges.rs``). ``conftest.py`` sets it for the Python
suite and checks what each test's simulators recorded when the test ends; ``make rust-test``
sets it for the Rust suite and then runs ``python tests/python/_atlas_spec.py DIR``.

What is checked, for each operation:

- **the request**: a path of the specification's (its template, each path parameter against
  its schema), a version the operation accepts in ``Accept`` (not past its sunset by the
  simulator's clock), the query's names, the values of each (type, enum, pattern, format,
  ``minItems``/``maxItems``, ``uniqueItems``), the required parameters, and the body against
  the request body's schema in the versioned ``Content-Type``;
- **the answer**: a status the operation documents, the versioned ``Content-Type`` that was
  asked for (errors: ``application/json``), and a body valid against the response's schema;
- **every field** of a body (the answer's and the request's), at any depth: a property of a
  schema it can be (OpenAPI lets an object carry properties its schema does not list, so the
  validation alone passes a field the service never sends, such as Ops Manager's ``hostId``
  on an Atlas alert).

A request that breaks the specification may be sent only to be refused: a 4xx answer is then
all the check asks of it (an error body in ``application/json``), and anything else is a
violation. An answer a test's fault shaped (a reset, a garbled body, an injected status) is
the fault's, not the simulator's: its request is checked, not the answer. The token endpoint
(``/api/oauth/token``) is not an operation of the Admin API and is not checked.

The departures of the live service from its specification that the check accepts are
:data:`DEPARTURES`, each with its source; there are no others.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Optional
from urllib.parse import parse_qsl, unquote

import jsonschema

SPEC = Path(__file__).resolve().parents[1] / "fixtures" / "atlas-openapi" / "spec.json"
TOKEN_PATH = "/api/oauth/token"
VERSIONED = re.compile(r"application/vnd\.atlas\.(\d{4}-\d\d-\d\d)\+json")


def _null_data_points(schemas: dict[str, Any]) -> None:
    schemas["MetricDataPoint_Atlas"]["properties"]["value"]["nullable"] = True


def _pt10s(schemas: dict[str, Any]) -> None:
    schemas["ApiMeasurementsGeneralView_Atlas"]["properties"]["granularity"]["enum"].append("PT10S")


def _plain_error_parameters(schemas: dict[str, Any]) -> None:
    schemas["ApiError"]["properties"]["parameters"]["items"] = {}


def _pt10s_below_m40(ex: Exchange) -> bool:
    """PT10S asked of a process below M40: refused, 400 (measurements document no 400)."""
    return ex.status == 400 and "granularity=PT10S" in (ex.query or "")


#: The only departures of the live service from its specification that the check accepts:
#: (what, its source, how the schemas are widened for it, and which answers it explains that
#: the specification does not document).
DEPARTURES = [
    (
        "A data point's `value` is null where the series has none (a rate series' first point, "
        "a missed sample); the schema says number.",
        "Atlas's measurements documentation ('the first data point has a null value'); "
        "shared/reference/atlas-openapi/README.md",
        _null_data_points,
        None,
    ),
    (
        "Granularity PT10S exists on clusters of tier M40 and larger (and is refused, 400, "
        "below); the schema's enum lists PT1M, PT5M, PT1H and P1D.",
        "Atlas's metrics documentation (10-second granularity on M40+); "
        "shared/reference/atlas-openapi/README.md",
        _pt10s,
        _pt10s_below_m40,
    ),
    (
        "An error's `parameters` are plain values (the resource, numbers), where ApiError's "
        "schema says objects.",
        "Atlas's rate-limit documentation, whose 429 body lists "
        '["api/atlas/v2/orgs", 55, 10, 5, 60] (tests/fixtures/error-429-atlas-v2.json)',
        _plain_error_parameters,
        None,
    ),
]


def _openapi_to_json_schema(x: Any, *, direction: str) -> Any:
    """An OpenAPI 3.0 schema object as JSON Schema (draft 7, which keeps every keyword these
    schemas use): ``nullable`` allows null; in a request, ``readOnly`` properties are not
    required (and in an answer, ``writeOnly`` ones); a pattern's Unicode classes are Python's.
    ``oneOf`` is read as OpenAPI's readers read it: the value is one of those schemas (the
    specification's branches overlap, as ``DefaultAlertViewForNdsGroup`` does every alert's;
    SDKs take the first that decodes), and where a ``discriminator`` maps the value of a
    property to its schema, the value is that schema's."""
    if isinstance(x, list):
        return [_openapi_to_json_schema(v, direction=direction) for v in x]
    if not isinstance(x, dict):
        return x
    out: dict[str, Any] = {}
    for k, v in x.items():
        if k == "properties":
            out[k] = {p: _openapi_to_json_schema(s, direction=direction) for p, s in v.items()}
        elif k in ("discriminator", "readOnly", "writeOnly", "deprecated", "nullable"):
            continue
        elif k == "oneOf":
            out["anyOf"] = _openapi_to_json_schema(v, direction=direction)
        elif k == "type" and v == "object" and _scalar_branches(x.get("oneOf")):
            # `type: object` beside branches that are all strings (`regionName`,
            # `BaseCloudProviderInstanceSize`): no value is both, and the branches are what
            # the service sends and the SDKs decode (atlas-sdk-go: `RegionName *string`).
            continue
        elif k == "pattern":
            # Unicode classes in Python's words: letters and digits (and `_`, which the one
            # pattern that has them allows anyway) are `\w`.
            out[k] = v.replace("\\p{L}\\p{N}", "\\w")
        else:
            out[k] = _openapi_to_json_schema(v, direction=direction)
    mapping = x.get("discriminator", {}).get("mapping")
    if mapping:
        # A value the mapping names is its schema's, as readers decode it (whether or not
        # `oneOf` lists that schema, and whatever the base's own properties say: some bases
        # give units in other words than their mapped schemas); another is the base's.
        prop = x["discriminator"]["propertyName"]
        named = {"properties": {prop: {"enum": list(mapping)}}, "required": [prop]}
        base = {k: v for k, v in out.items() if k != "type"}
        cases = [
            {"if": {"properties": {prop: {"const": value}}, "required": [prop]},
             "then": {"$ref": ref}}
            for value, ref in mapping.items()
        ]  # fmt: skip
        out = {k: v for k, v in out.items() if k == "type"}
        out["allOf"] = [*cases, {"if": named, "else": base}]
        return out
    skip = "readOnly" if direction == "request" else "writeOnly"
    if "required" in out and "properties" in x:
        hidden = {p for p, s in x["properties"].items() if isinstance(s, dict) and s.get(skip)}
        out["required"] = [r for r in out["required"] if r not in hidden]
        if not out["required"]:
            del out["required"]
    if x.get("nullable"):
        t = out.get("type")
        if isinstance(t, str):
            out["type"] = [t, "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        if "$ref" in out or "allOf" in out or "anyOf" in out:
            out = {"anyOf": [{"type": "null"}, out]}
    return out


def _subtypes_extend_their_base(schemas: dict[str, Any]) -> None:
    """OpenAPI's polymorphism, as its readers read it: a base schema names its subtypes by a
    discriminator (``CloudRegionConfig20240805`` by ``providerName``), and a subtype extends
    the base (``AWSRegionConfig20240805``: ``allOf`` the base and its own properties). Within
    the subtype the base stands for its own properties, not for a new choice of subtype
    (which would choose the same subtype again, without end): each such reference is to a
    copy of the base without its discriminator and branches (``<base>.properties``)."""
    for name, schema in list(schemas.items()):
        mapping = schema.get("discriminator", {}).get("mapping")
        if not mapping:
            continue
        plain = f"{name}.properties"
        schemas[plain] = {k: v for k, v in schema.items() if k not in ("discriminator", "oneOf")}
        for ref in mapping.values():
            for part in schemas[ref.rsplit("/", 1)[1]].get("allOf", []):
                if part.get("$ref") == f"#/components/schemas/{name}":
                    part["$ref"] = f"#/components/schemas/{plain}"


def _scalar_branches(branches: Any) -> bool:
    """Whether ``branches`` (a ``oneOf``) are all of a type that is not an object."""
    return bool(branches) and all(
        isinstance(b, dict) and b.get("type") not in (None, "object") for b in branches
    )


_DATE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$")


def _date_time(value: object) -> bool:
    return not isinstance(value, str) or bool(_DATE_TIME.match(value))


def _email(value: object) -> bool:
    return not isinstance(value, str) or bool(re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", value))


#: The formats checked: the two the operations' schemas use that a value can break.
FORMATS = jsonschema.FormatChecker(formats=())
FORMATS.checks("date-time")(_date_time)
FORMATS.checks("email")(_email)


@dataclass
class Exchange:
    """One recorded exchange (a line of an exchanges file)."""

    method: str
    path: str
    query: Optional[str]
    accept: Optional[str]
    content_type: Optional[str]
    body: Optional[str]
    status: int
    faults: list[str]
    now: str
    answer: Optional[dict[str, Any]]
    started_by: str = ""

    @classmethod
    def of(cls, line: dict[str, Any], started_by: str = "") -> Exchange:
        return cls(**{k: line.get(k) for k in cls.__dataclass_fields__ if k != "started_by"},
                   started_by=started_by)  # fmt: skip

    def __str__(self) -> str:
        q = f"?{self.query}" if self.query else ""
        return f"{self.method} {self.path}{q} -> {self.status}"


@dataclass
class Operation:
    name: str
    spec: dict[str, Any]
    segments: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.segments = self.spec["path"].split("/")

    def match(self, method: str, path: str) -> Optional[dict[str, str]]:
        """The path parameters, decoded, if ``method path`` is this operation."""
        if method != self.spec["method"]:
            return None
        got = path.split("/")
        if len(got) != len(self.segments):
            return None
        params = {}
        for want, have in zip(self.segments, got):
            if want.startswith("{") and want.endswith("}"):
                params[want[1:-1]] = unquote(have)
            elif want != have:
                return None
        return params

    def parameters(self, where: str) -> dict[str, dict[str, Any]]:
        return {p["name"]: p for p in self.spec["parameters"] if p["in"] == where}


class Spec:
    """The specification extract, its schemas widened by :data:`DEPARTURES`."""

    def __init__(self, path: Path = SPEC) -> None:
        doc = json.loads(path.read_text(encoding="utf-8"))
        schemas = copy.deepcopy(doc["components"]["schemas"])
        _subtypes_extend_their_base(schemas)
        for _, _, widen, _ in DEPARTURES:
            widen(schemas)
        self.operations = [Operation(name, op) for name, op in doc["operations"].items()]
        self._schemas = schemas
        self._validators: dict[tuple[str, str], jsonschema.Draft7Validator] = {}
        self._enum_cache: dict[str, list[tuple[str, list[Any]]]] = {}

    @cached_property
    def _roots(self) -> dict[str, dict[str, Any]]:
        return {
            d: {"components": {"schemas": _openapi_to_json_schema(self._schemas, direction=d)}}
            for d in ("request", "response")
        }

    def validator(self, schema: dict[str, Any], direction: str) -> jsonschema.Draft7Validator:
        key = (json.dumps(schema, sort_keys=True), direction)
        if key not in self._validators:
            root = {
                **self._roots[direction],
                **_openapi_to_json_schema(schema, direction=direction),
            }
            self._validators[key] = jsonschema.Draft7Validator(root, format_checker=FORMATS)
        return self._validators[key]

    def operation(self, method: str, path: str) -> tuple[Optional[Operation], dict[str, str]]:
        for op in self.operations:
            params = op.match(method, path)
            if params is not None:
                return op, params
        return None, {}

    # ---- the check of one exchange ----------------------------------------------------------

    def check(self, ex: Exchange) -> list[str]:
        """What breaks the specification in ``ex``: one line each, named
        (``request.version: ...``, ``answer.body: ...``); empty when nothing does."""
        if ex.path == TOKEN_PATH:
            return []
        op, path_params = self.operation(ex.method, ex.path)
        request = (
            [f"request.path: no operation of the specification is {ex.method} {ex.path}"]
            if op is None
            else self._request(op, path_params, ex)
        )
        refused = 400 <= ex.status < 500
        if ex.faults or ex.answer is None:
            # The answer is the fault's; the request is the client's.
            return [] if request and refused else request
        if request:
            if not refused:
                return [*request, f"answer.status: {ex.status} to a request the "
                        "specification does not allow (it is to be refused)"]  # fmt: skip
            return self._error_answer(ex)
        assert op is not None
        return self._answer(op, ex)

    def _request(self, op: Operation, path_params: dict[str, str], ex: Exchange) -> list[str]:
        out = []
        for name, p in op.parameters("path").items():
            out += _value_problems(f"request.path.{name}", path_params.get(name), p["schema"])
        # The version: one the operation accepts, not past its sunset.
        asked = _versions(ex.accept)
        version = next((v for v in asked if v in op.spec["versions"]), None)
        if version is None:
            out.append(f"request.version: Accept {ex.accept!r} names none of "
                       f"{op.spec['versions']} ({op.name})")  # fmt: skip
        else:
            sunset = op.spec["sunset"].get(version)
            if sunset and ex.now[:10] >= sunset:
                out.append(f"request.version: {version} of {op.name} is past its sunset {sunset}")
        # The query.
        declared = op.parameters("query")
        pairs = parse_qsl(ex.query or "", keep_blank_values=True)
        values: dict[str, list[str]] = {}
        for k, v in pairs:
            values.setdefault(k, []).append(v)
        for k in values:
            if k not in declared:
                out.append(f"request.query: {k} is not a parameter of {op.name}")
        for k, p in declared.items():
            got = values.get(k)
            if got is None:
                if p.get("required"):
                    out.append(f"request.query: {op.name} requires {k}")
                continue
            schema = p["schema"]
            if schema.get("type") == "array":
                out += _array_problems(f"request.query.{k}", got, schema, self)
            elif len(got) > 1:
                out.append(f"request.query.{k}: given {len(got)} times")
            else:
                out += _value_problems(f"request.query.{k}", got[0], schema, self)
        # The body.
        body = op.spec.get("requestBody")
        if body is None:
            if ex.body:
                out.append(f"request.body: {op.name} takes no body")
        elif ex.body is None:
            if body["required"]:
                out.append(f"request.body: {op.name} requires one")
        else:
            media = _media(ex.content_type) or ""
            schema = body["content"].get(media)
            if schema is None:
                out.append(
                    f"request.content_type: {media!r} is not one of {sorted(body['content'])}"
                )
            elif version is not None and media != f"application/vnd.atlas.{version}+json":
                out.append(f"request.content_type: {media!r} is not the version asked ({version})")
            else:
                out += self._body("request.body", ex.body, schema, "request")
        return out

    def _answer(self, op: Operation, ex: Exchange) -> list[str]:
        documented = op.spec["responses"]
        if any(explains and explains(ex) for _, _, _, explains in DEPARTURES):
            return self._error_answer(ex)
        if str(ex.status) not in documented:
            return [f"answer.status: {ex.status} is not documented for {op.name} "
                    f"({sorted(documented)})"]  # fmt: skip
        if ex.status >= 400:
            return self._error_answer(ex)
        content = documented[str(ex.status)]
        asked = [f"application/vnd.atlas.{v}+json" for v in _versions(ex.accept)]
        media = _media((ex.answer or {}).get("content_type"))
        if media not in asked or media not in content:
            return [f"answer.content_type: {media!r}, where {asked[:1]} was asked "
                    f"({op.name} answers {sorted(content)})"]  # fmt: skip
        body = (ex.answer or {}).get("body")
        if body is None:
            return [] if not content[media] else [f"answer.body: none, for {op.name}"]
        return self._body("answer.body", body, content[media], "response")

    def _error_answer(self, ex: Exchange) -> list[str]:
        media = _media((ex.answer or {}).get("content_type"))
        if media != "application/json":
            return [f"answer.content_type: {media!r} for an error, not 'application/json'"]
        body = (ex.answer or {}).get("body")
        if body is None:
            return ["answer.body: an error without a body"]
        return self._body("answer.body", body, {"$ref": "#/components/schemas/ApiError"},
                          "response")  # fmt: skip

    def _body(self, where: str, text: str, schema: dict[str, Any], direction: str) -> list[str]:
        try:
            value = json.loads(text)
        except ValueError as e:
            return [f"{where}: not JSON ({e})"]
        errors = sorted(
            self.validator(schema, direction).iter_errors(value), key=lambda e: list(e.path)
        )
        out = [f"{where}{_where(e)}: {_short(e)}" for e in errors[:5]]
        undocumented: list[str] = []
        self._documented(value, [(None, schema)], where, direction, undocumented)
        return out + undocumented[:5]

    # ---- every field a property of a schema the value can reach ------------------------------

    def _reach(self, value: Any, named: tuple[Optional[str], Any], direction: str,
               depth: int = 0) -> list[tuple[Optional[str], dict[str, Any]]]:  # fmt: skip
        """The schemas that describe ``value`` where ``schema`` does, each with its name:
        ``$ref`` followed, every part of ``allOf``, the branches of ``oneOf``/``anyOf`` that
        ``value`` is valid against (all of them where it is valid against none: the
        validator says so), and where a discriminator maps the value's property, its schema
        alone (as the validator, and the SDKs, read it)."""
        name, schema = named
        while isinstance(schema, dict) and "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            schema = self._schemas[name]
        if not isinstance(schema, dict) or depth > 40:
            return []
        disc = schema.get("discriminator", {})
        mapping = disc.get("mapping") or {}
        if isinstance(value, dict) and value.get(disc.get("propertyName")) in mapping:
            ref = {"$ref": mapping[value[disc["propertyName"]]]}
            return self._reach(value, (None, ref), direction, depth + 1)
        out = [(name, schema)]
        for part in schema.get("allOf", []):
            out += self._reach(value, (None, part), direction, depth + 1)
        for key in ("oneOf", "anyOf"):
            branches = schema.get(key, [])
            # The branches whose enums the value's properties are in (most differ by
            # `eventTypeName`), then those it is valid against where that leaves several.
            fit = [b for b in branches if self._enums_fit(value, b)]
            if len(fit) > 1:
                fit = [b for b in fit if self.validator(b, direction).is_valid(value)]
            for b in fit or branches:
                out += self._reach(value, (None, b), direction, depth + 1)
        return out

    def _enums_fit(self, value: Any, branch: Any) -> bool:
        """Whether each property of ``value`` that ``branch`` (or a part of it) gives an enum
        holds one of its values: a quick way to set aside the branches it cannot be."""
        if not isinstance(value, dict):
            return True
        return all(value[k] in allowed for k, allowed in self._enums(branch) if k in value)

    def _enums(self, schema: Any, depth: int = 0) -> list[tuple[str, list[Any]]]:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._enum_cache:
            s = schema
            while isinstance(s, dict) and "$ref" in s:
                s = self._schemas[s["$ref"].rsplit("/", 1)[1]]
            out: list[tuple[str, list[Any]]] = []
            if isinstance(s, dict) and depth < 10:
                for k, p in s.get("properties", {}).items():
                    while isinstance(p, dict) and "$ref" in p:
                        p = self._schemas[p["$ref"].rsplit("/", 1)[1]]
                    if isinstance(p, dict) and "enum" in p and not p.get("nullable"):
                        out.append((k, p["enum"]))
                for part in s.get("allOf", []):
                    out += self._enums(part, depth + 1)
            self._enum_cache[key] = out
        return self._enum_cache[key]

    def _documented(self, value: Any, schemas: list[tuple[Optional[str], Any]], where: str,
                    direction: str, out: list[str]) -> None:  # fmt: skip
        """Appends to ``out`` each field of ``value`` (at any depth) that no schema it can
        reach has as a property: OpenAPI lets an object carry properties its schema does not
        list, so the validator alone would pass a field the service never sends. A property
        may be any where a schema says so (``additionalProperties``), and an object whose
        schemas list no property at all (``type: object``) is not described further."""
        reached = [r for named in schemas for r in self._reach(value, named, direction)]
        if isinstance(value, list):
            items = [(None, s["items"]) for _, s in reached if "items" in s]
            for i, v in enumerate(value):
                self._documented(v, items, f"{where}[{i}]", direction, out)
            return
        if not isinstance(value, dict):
            return
        listed = [s for _, s in reached if "properties" in s]
        extra = [s.get("additionalProperties") for _, s in reached]
        extra = [(None, {} if x is True else x) for x in extra if x is True or isinstance(x, dict)]
        if not listed and not extra:
            return
        for k, v in value.items():
            own = [(None, s["properties"][k]) for s in listed if k in s["properties"]]
            if own or extra:
                self._documented(v, own or extra, f"{where}.{k}", direction, out)
            else:
                names = sorted({n for n, s in reached if n and "properties" in s})
                out.append(f"{where}.{k}: undocumented (a property of none of the schemas it "
                           f"can be: {', '.join(names) or 'unnamed'})")  # fmt: skip


def _where(e: jsonschema.ValidationError) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)


def _short(e: jsonschema.ValidationError) -> str:
    if e.validator in ("oneOf", "anyOf") and e.context:
        best = jsonschema.exceptions.best_match(e.context)
        return f"matches no schema it may ({_where(best) or '.'}: {best.message[:200]})"
    return e.message[:300]


def _media(content_type: Optional[str]) -> Optional[str]:
    """A Content-Type's media type, without its parameters (``charset=...``)."""
    return content_type.split(";", 1)[0].strip() if content_type else content_type


def _versions(accept: Optional[str]) -> list[str]:
    return [m.group(1) for m in VERSIONED.finditer(accept or "")]


def _typed(value: str, schema: dict[str, Any]) -> tuple[Any, Optional[str]]:
    """A query or path value as its schema's type, or why it is not one."""
    t = schema.get("type")
    if t == "boolean":
        return (value == "true", None) if value in ("true", "false") else (None, "not a boolean")
    if t == "integer":
        return (int(value), None) if re.fullmatch(r"-?\d+", value) else (None, "not an integer")
    if t == "number":
        try:
            return float(value), None
        except ValueError:
            return None, "not a number"
    return value, None


def _value_problems(where: str, value: Optional[str], schema: dict[str, Any],
                    spec: Optional[Spec] = None) -> list[str]:  # fmt: skip
    """What is wrong with one query or path value; ``spec`` resolves the schema's references
    to its components (the events' ``eventType`` items name ``EventTypeForNdsGroup``)."""
    if value is None:
        return [f"{where}: missing"]
    typed, why = _typed(value, schema)
    if why:
        return [f"{where}: {value!r} is {why}"]
    v = (
        spec.validator(schema, "request")
        if spec is not None
        else jsonschema.Draft7Validator(_openapi_to_json_schema(schema, direction="request"),
                                        format_checker=FORMATS)
    )  # fmt: skip
    return [f"{where}: {value!r}: {e.message[:200]}" for e in v.iter_errors(typed)]


def _array_problems(where: str, values: list[str], schema: dict[str, Any],
                    spec: Optional[Spec] = None) -> list[str]:  # fmt: skip
    out = []
    if len(values) < schema.get("minItems", 0):
        out.append(f"{where}: {len(values)} values, fewer than minItems {schema['minItems']}")
    if "maxItems" in schema and len(values) > schema["maxItems"]:
        out.append(f"{where}: {len(values)} values, more than maxItems {schema['maxItems']}")
    if schema.get("uniqueItems") and len(set(values)) != len(values):
        out.append(f"{where}: values repeat, and uniqueItems")
    for v in values:
        out += _value_problems(where, v, schema.get("items", {}), spec)
    return out


# ---- reading recorded exchanges ----------------------------------------------------------------


class Reader:
    """Reads the exchanges files of a folder, each line once: :meth:`new` gives what was
    appended since it last looked (an unfinished last line is left for next time)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.offsets: dict[Path, int] = {}
        self.started_by: dict[Path, str] = {}

    def new(self) -> list[Exchange]:
        out = []
        for path in sorted(self.folder.glob("*.jsonl")):
            with path.open("rb") as f:
                f.seek(self.offsets.get(path, 0))
                data = f.read()
            end = data.rfind(b"\n") + 1
            self.offsets[path] = self.offsets.get(path, 0) + end
            for raw in data[:end].splitlines():
                line = json.loads(raw)
                if "simulator" in line:
                    self.started_by[path] = line["simulator"]["started_by"]
                else:
                    out.append(Exchange.of(line, self.started_by.get(path, path.name)))
        return out


def check_all(spec: Spec, exchanges: list[Exchange]) -> list[str]:
    """Every violation of ``exchanges``, each with its exchange and who started its
    simulator."""
    out = []
    for ex in exchanges:
        for problem in spec.check(ex):
            out.append(f"{problem}\n    in {ex} (simulator of {ex.started_by})")
    return out


def main(argv: list[str]) -> int:
    folder = Path(argv[1])
    exchanges = Reader(folder).new()
    problems = check_all(Spec(), exchanges)
    for p in problems:
        print(p)
    files = len(list(folder.glob("*.jsonl")))
    print(f"atlas spec check: {len(exchanges)} exchanges of {files} Atlas simulators, "
          f"{len(problems)} violations ({datetime.now():%H:%M:%S})")  # fmt: skip
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
