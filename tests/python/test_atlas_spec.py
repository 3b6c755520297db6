"""The spec check itself (_atlas_spec.py): an exchange as Atlas's OpenAPI specification
describes it passes, and each way of breaking it fails, by name; the accepted departures are
the named ones; and a wrong request sent to a real Atlas simulator is caught from its recorded
exchanges."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _atlas_spec import DEPARTURES, Exchange, Reader, Spec, check_all
from _atlas_spec import SPEC as SPEC_FILE
from conftest import FIXED_NOW

from opsapi.testing import Simulator

G = "5e2211c17a3e5a48f5497de3"
P = "db-0.example.net:27017"
V1 = "application/vnd.atlas.2023-01-01+json"
V2 = "application/vnd.atlas.2024-05-30+json"


@pytest.fixture(scope="module")
def spec() -> Spec:
    return Spec()


def exchange(below: str, answer: Any = None, **kw: Any) -> Exchange:
    """A GET of ``/api/atlas/v2{below}`` answered 200 with ``answer`` in the versioned media
    type it asked for; ``kw`` changes any field."""
    line: dict[str, Any] = {
        "method": "GET",
        "path": "/api/atlas/v2" + below,
        "query": None,
        "accept": V1,
        "content_type": None,
        "body": None,
        "status": 200,
        "faults": [],
        "now": "2026-03-02T10:00:00Z",
        "answer": {"content_type": kw.pop("answer_type", V1), "body": json.dumps(answer)},
    }
    line.update(kw)
    return Exchange.of(line, "a test")


GROUP = {"id": G, "name": "Project-0", "orgId": G, "clusterCount": 1,
         "created": "2026-01-01T00:00:00Z", "links": []}  # fmt: skip
MEASUREMENTS = {
    "groupId": G,
    "hostId": P,
    "processId": P,
    "granularity": "PT1H",
    "start": "2026-03-02T08:00:00Z",
    "end": "2026-03-02T09:00:00Z",
    "measurements": [
        {"name": "CONNECTIONS", "units": "SCALAR",
         "dataPoints": [{"timestamp": "2026-03-02T08:00:00Z", "value": None},
                        {"timestamp": "2026-03-02T09:00:00Z", "value": 3.0}]},
    ],
}  # fmt: skip
MEASURE = f"/groups/{G}/processes/{P}/measurements"
ALERT = f"/groups/{G}/alerts/{G}"
ERROR = {"error": 404, "errorCode": "RESOURCE_NOT_FOUND", "detail": "x", "reason": "Not Found",
         "parameters": ["x"]}  # fmt: skip


def names(problems: list[str]) -> list[str]:
    return [p.split(":", 1)[0] for p in problems]


def test_an_exchange_as_the_specification_describes_it_passes(spec):
    assert spec.check(exchange(f"/groups/{G}", GROUP)) == []
    assert spec.check(exchange("/groups", {"results": [GROUP], "totalCount": 1})) == []
    q = "granularity=PT1H&start=2026-03-02T08:00:00Z&end=2026-03-02T09:00:00Z&m=CONNECTIONS"
    assert spec.check(exchange(MEASURE, MEASUREMENTS, query=q)) == []


@pytest.mark.parametrize(
    ("change", "name"),
    [
        # The request.
        ({"accept": "application/json"}, "request.version"),
        ({"accept": "application/vnd.atlas.2099-01-01+json"}, "request.version"),
        ({"query": "granularity=PT1H&period=P1D&m=NOT_A_MEASUREMENT"}, "request.query.m"),
        ({"query": "granularity=PT1H&period=P1D&" + "&".join(
            f"m={m}" for m in ["CONNECTIONS", "ASSERT_MSG", "ASSERT_USER", "ASSERT_REGULAR",
                               "ASSERT_WARNING", "OPCOUNTER_CMD", "OPCOUNTER_QUERY",
                               "OPCOUNTER_DELETE", "OPCOUNTER_INSERT", "OPCOUNTER_UPDATE",
                               "OPCOUNTER_GETMORE"])}, "request.query.m"),
        ({"query": "granularity=PT1H&period=P1D&m=CONNECTIONS&m=CONNECTIONS"}, "request.query.m"),
        ({"query": "period=P1D"}, "request.query"),
        ({"query": "granularity=PT1H&period=P1D&bogus=1"}, "request.query"),
        ({"query": "granularity=PT1H&start=yesterday&end=2026-03-02T09:00:00Z"},
         "request.query.start"),
        ({"path": f"/api/atlas/v2/groups/not-hex/processes/{P}/measurements",
          "query": "granularity=PT1H&period=P1D"}, "request.path.groupId"),
        ({"path": f"/api/atlas/v2/groups/{G}/hosts/{G}/measurements"}, "request.path"),
        # The answer.
        ({"query": "granularity=PT1H&period=P1D", "answer_type": "application/json"},
         "answer.content_type"),
        ({"query": "granularity=PT1H&period=P1D", "status": 201}, "answer.status"),
    ],
)  # fmt: skip
def test_each_way_of_breaking_it_fails_by_name(spec, change, name):
    problems = spec.check(exchange(MEASURE, MEASUREMENTS, **change))
    assert name in names(problems), problems


def test_a_body_against_its_schema(spec):
    q = "granularity=PT1H&period=P1D"
    for broken, where in [
        ({**GROUP, "clusterCount": None}, "answer.body.clusterCount"),
        ({k: v for k, v in GROUP.items() if k != "created"}, "answer.body"),
    ]:
        problems = spec.check(exchange(f"/groups/{G}", broken))
        assert where in names(problems), problems
    units = json.loads(json.dumps(MEASUREMENTS))
    units["measurements"][0]["units"] = "MEGABYTES"
    assert "answer.body.measurements[0].units" in names(
        spec.check(exchange(MEASURE, units, query=q))
    )
    text = json.loads(json.dumps(MEASUREMENTS))
    text["measurements"][0]["dataPoints"][1]["value"] = "3"
    assert "answer.body.measurements[0].dataPoints[1].value" in names(
        spec.check(exchange(MEASURE, text, query=q))
    )


METRIC_ALERT = {
    "id": G, "groupId": G, "alertConfigId": G, "eventTypeName": "OUTSIDE_METRIC_THRESHOLD",
    "status": "OPEN", "created": "2026-03-01T00:00:00Z", "updated": "2026-03-01T00:00:00Z",
    "metricName": "CONNECTIONS", "currentValue": {"number": 2100.0, "units": "RAW"},
    "hostnameAndPort": P, "replicaSetName": "rs0", "clusterName": "orders", "links": [],
}  # fmt: skip


def test_every_field_of_an_answer_is_a_property_of_a_schema_it_can_be(spec):
    """OpenAPI lets an object carry properties its schema does not list, so validation alone
    passes a field the service never sends: each field, at any depth, must be a property of a
    schema the answer can be (following $ref, allOf, the oneOf branches it matches, a
    discriminator's schema, arrays' items)."""
    assert spec.check(exchange(ALERT, METRIC_ALERT)) == []
    page = {"results": [METRIC_ALERT], "totalCount": 1, "links": []}
    assert spec.check(exchange(f"/groups/{G}/alerts", page)) == []
    # Ops Manager's fields of an alert, which no schema of Atlas's alerts has.
    invented = {**METRIC_ALERT, "hostId": "7c5e4c2c05ba1b5f9b4e4b8e3b5c9f02", "typeName":
                "HOST_METRIC", "tags": []}  # fmt: skip
    problems = spec.check(exchange(ALERT, invented))
    assert names(problems) == ["answer.body.hostId", "answer.body.typeName", "answer.body.tags"]
    assert "undocumented" in problems[0]
    listed = spec.check(exchange(f"/groups/{G}/alerts", {**page, "results": [invented]}))
    assert names(listed)[0] == "answer.body.results[0].hostId"
    # Deeper: a field of a nested object, and of an array's item.
    nested = {**METRIC_ALERT, "currentValue": {"number": 1.0, "units": "RAW", "raw": 1}}
    assert names(spec.check(exchange(ALERT, nested))) == ["answer.body.currentValue.raw"]
    q = "granularity=PT1H&period=P1D"
    point = json.loads(json.dumps(MEASUREMENTS))
    point["measurements"][0]["dataPoints"][0]["quality"] = "good"
    assert names(spec.check(exchange(MEASURE, point, query=q))) == [
        "answer.body.measurements[0].dataPoints[0].quality"
    ]
    # An error's body too.
    error = {**ERROR, "requestId": "abc"}
    refused = exchange(MEASURE, error, query=q, status=404, answer_type="application/json")
    assert names(spec.check(refused)) == ["answer.body.requestId"]


def test_acknowledging_takes_either_version_until_its_sunset_and_answers_200(spec):
    alert = {"id": G, "groupId": G, "alertConfigId": G, "eventTypeName": "NO_PRIMARY",
             "status": "OPEN",
             "created": "2026-03-01T00:00:00Z", "updated": "2026-03-01T00:00:00Z",
             "acknowledgedUntil": "2026-03-03T00:00:00Z",
             "acknowledgingUsername": "someone@example.com"}  # fmt: skip
    body = json.dumps({"acknowledgedUntil": "2026-03-03T00:00:00Z"})
    for media in (V1, V2):
        ok = exchange(ALERT, alert, method="PATCH", accept=media, content_type=media, body=body,
                      answer_type=media)  # fmt: skip
        assert spec.check(ok) == [], media
    gone = exchange(ALERT, alert, method="PATCH", content_type=V1, body=body,
                    now="2027-07-01T00:00:00Z")  # fmt: skip
    assert names(spec.check(gone)) == ["request.version", "answer.status"]
    created = exchange(ALERT, alert, method="PATCH", accept=V2, content_type=V2, body=body,
                       answer_type=V2, status=201)  # fmt: skip
    assert names(spec.check(created)) == ["answer.status"]
    wrong_type = exchange(ALERT, alert, method="PATCH", accept=V2, content_type=V1, body=body,
                          answer_type=V2)  # fmt: skip
    assert names(spec.check(wrong_type)) == ["request.content_type", "answer.status"]


def test_a_wrong_request_may_be_sent_only_to_be_refused(spec):
    refused = exchange(MEASURE, ERROR, accept="application/json", status=406,
                       answer_type="application/json")  # fmt: skip
    assert spec.check(refused) == []
    not_json = exchange(MEASURE, ERROR, accept="application/json", status=406, answer_type=V1)
    assert names(spec.check(not_json)) == ["answer.content_type"]
    # An error to a valid request: documented, in application/json, an ApiError.
    q = "granularity=PT1H&period=P1D"
    assert spec.check(exchange(MEASURE, ERROR, query=q, status=404,
                               answer_type="application/json")) == []  # fmt: skip
    bare = exchange(MEASURE, {"error": 404}, query=q, status=404, answer_type="application/json")
    assert names(spec.check(bare)) == ["answer.body"]


def test_an_answer_a_fault_shaped_is_not_the_simulators(spec):
    garbled = exchange(MEASURE, MEASUREMENTS, query="granularity=PT1H&period=P1D",
                       status=503, faults=["status_503"])  # fmt: skip
    assert spec.check(garbled) == []
    # Its request still is the client's.
    wrong = exchange(MEASURE, accept="application/json", status=0, faults=["reset"],
                     query="granularity=PT1H&period=P1D")  # fmt: skip
    wrong.answer = None
    assert names(spec.check(wrong)) == ["request.version"]


def test_pt10s_below_m40_is_refused_as_the_departure_says(spec):
    """The PT10S departure explains a 400 to PT10S (a process below M40), and nothing else."""
    refusal = {**ERROR, "error": 400, "errorCode": "INVALID_GRANULARITY"}
    for granularity, want in [("PT10S", []), ("PT1H", ["answer.status"])]:
        ex = exchange(MEASURE, refusal, query=f"granularity={granularity}&period=PT1M",
                      status=400, answer_type="application/json")  # fmt: skip
        assert names(spec.check(ex)) == want, granularity


def test_the_departures_are_the_named_ones_each_with_its_source():
    assert len(DEPARTURES) == 3
    for what, source, _, _ in DEPARTURES:
        assert what and source
    assert "null" in DEPARTURES[0][0] and "PT10S" in DEPARTURES[1][0]


def test_a_wrong_request_to_an_atlas_simulator_fails_the_check(tmp_path, monkeypatch, spec):
    """End to end: a simulator started with OPSAPI_SIM_EXCHANGES records what it was asked
    and answered, and the check names what breaks the specification: here a query parameter
    the operation does not have, which the simulator ignores and answers. (This test's
    simulator records into a folder of its own, so the suite's check does not see it.)"""
    requests = pytest.importorskip("requests")
    monkeypatch.setenv("OPSAPI_SIM_EXCHANGES", str(tmp_path))
    with Simulator(now=FIXED_NOW, flavour="atlas") as sim:
        g = sim.group_ids[0]
        auth = requests.auth.HTTPDigestAuth(sim.public_key, sim.private_key)
        r = requests.get(f"{sim.api_url}/groups/{g}?bogus=1", auth=auth,
                         headers={"Accept": V1}, timeout=30)  # fmt: skip
        assert r.status_code == 200
        sim.client().groups.get(g)  # as the client asks: nothing to say
    exchanges = [e for e in Reader(tmp_path).new() if e.status != 401 and "oauth" not in e.path]
    assert [str(e) for e in exchanges] == [
        f"GET /api/atlas/v2/groups/{g}?bogus=1 -> 200",
        f"GET /api/atlas/v2/groups/{g} -> 200",
    ]
    problems = check_all(spec, exchanges)
    assert names(problems) == ["request.query", "answer.status"], problems
    assert "bogus is not a parameter of groups.get" in problems[0]
    assert problems[0].endswith("(simulator of " + exchanges[0].started_by + ")")


def test_the_flavour_tables_atlas_rows_are_the_specifications():
    """Each operation Atlas has, by the flavour table (``OPERATION_TABLE``), is one of the
    extract's (found by its row's ``operationId``: ``extract.py``'s allowlist, in the table's
    order), with the same method, the same path (the same literal segments, a placeholder where
    the specification has one), versions the specification serves with their sunset dates, and
    query parameters it documents; and the extract holds no operation the table lacks."""
    from opsapi._native import OPERATION_TABLE

    doc = json.loads(SPEC_FILE.read_text(encoding="utf-8"))["operations"]
    atlas = {name: row for name, row in OPERATION_TABLE.items() if "atlas" in row["flavours"]}
    assert sorted(doc) == sorted(atlas), "the extract's allowlist is the table's Atlas rows"
    assert list(doc) == list(atlas), "in the table's order (extract.py reads the table)"
    for name, row in atlas.items():
        op = doc[name]
        assert op["operationId"] == row["atlas_operation_id"], name
        assert op["method"] == row["method"], name
        ours = ("/api/atlas/v2" + row["atlas_path"]).split("/")
        theirs = op["path"].split("/")
        assert len(ours) == len(theirs), (name, op["path"])
        for a, b in zip(ours, theirs):
            assert a.startswith("{") == b.startswith("{"), (name, op["path"])
            assert a.startswith("{") or a == b, (name, op["path"])
        for version, sunset in row["atlas_versions"]:
            assert version in op["versions"], (name, version)
            assert op["sunset"].get(version) == sunset, (name, version)
        documented = {p["name"] for p in op["parameters"] if p["in"] == "query"}
        assert set(row["query"]) <= documented, (name, set(row["query"]) - documented)
