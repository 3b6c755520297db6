"""opsapi mcp's one write, acknowledge_alert: it acts after the person's yes through the client
(MCP elicitation, on both protocol generations: a request to the client mid-call before
2026-07-28, an input-required round since), sends no write on a no, refuses a client that
cannot ask before any request, and caps the length. And no secret of the configuration in
any result, error or log line."""

from __future__ import annotations

import logging
import sys
from datetime import timedelta

import pytest

if sys.version_info < (3, 10):
    pytest.skip("opsapi mcp needs CPython 3.10 or later (the MCP SDK)", allow_module_level=True)
pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install 'opsapi[mcp]'")

from _mcp import READ_ONLY, call, read  # noqa: E402
from mcp_types import ElicitResult  # noqa: E402

import opsapi  # noqa: E402
from opsapi import cli  # noqa: E402
from opsapi.mcp import Fleet, Settings, build_server  # noqa: E402

MODES = ["auto", "legacy"]  # 2026-07-28 (input-required rounds), and the handshake's


def _server(sim, **settings):
    fleet = Fleet(sim.client(max_retries=0),
                  Settings(allow_writes=True, refresh_seconds=None, **settings))  # fmt: skip
    return build_server(fleet)


def _open_alert(sim):
    g = sim.group_ids[0]
    return next(a for a in sim.client().alerts.list(g, status="OPEN")
                if a.acknowledged_until is None and a.hostname_and_port)  # fmt: skip


def _answering(action, yes=True, asked=None):
    async def answer(context, params):
        if asked is not None:
            asked.append(params.message)
        if action == "accept":
            return ElicitResult(action="accept", content={"acknowledge": yes})
        return ElicitResult(action=action)

    return answer


def _writes(sim):
    return [r for r in sim.requests() if r["authorized"] and r["method"] != "GET"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_yes_acknowledges_and_the_result_is_the_apis_record(own_sim, fixed_now, mode):
    """The assistant listed the alerts first (as the tool's description says): the question
    names the alert as that listing showed it, and its end by the server's clock."""
    alert = _open_alert(own_sim)
    server = _server(own_sim)
    said, listed = read(await call(server, "list_alerts", {"limit": 100}))
    assert alert.id in {a["id"] for a in listed["alerts"]}, said
    asked: list[str] = []
    own_sim.clear_requests()
    result = await call(
        server, "acknowledge_alert",
        {"alert_id": alert.id, "duration": "PT4H", "comment": "disk resize tonight"},
        elicitation_callback=_answering("accept", asked=asked), mode=mode,
    )  # fmt: skip
    said, data = read(result)
    assert data["acknowledged"] is True, said
    until = fixed_now + timedelta(hours=4)
    assert data["alert"]["acknowledged_until"] == until.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert data["alert"]["acknowledgement_comment"] == "disk resize tonight"
    # After the yes: the alert read in its project, then one PATCH.
    assert [(r["method"], r["path"]) for r in own_sim.requests() if r["authorized"]] == [
        ("GET", f"/api/public/v1.0/groups/{alert.group_id}/alerts/{alert.id}"),
        ("PATCH", f"/api/public/v1.0/groups/{alert.group_id}/alerts/{alert.id}"),
    ]
    [patch] = _writes(own_sim)
    assert b'"acknowledgementComment":"disk resize tonight"' in patch["body"]
    world = {a["id"]: a for a in own_sim.world()["project_alerts"]}[alert.id]
    assert world["acknowledgement_comment"] == "disk resize tonight"
    # What the person was asked: which alert, where, until when, and why.
    [message] = set(asked)
    for said_part in (alert.id, alert.hostname_and_port, "2026-03-02 14:00 UTC",
                      "'disk resize tonight'"):  # fmt: skip
        assert said_part in message, message


async def test_an_alert_no_result_showed_is_asked_about_by_its_id(own_sim, fixed_now) -> None:
    """Asked straight away, with no earlier call: the question says the id and the length
    (counted from the yes: the server's clock is not known yet, and nothing is asked to learn
    it), and the end is the server's clock at the yes plus the duration."""
    alert = _open_alert(own_sim)
    asked: list[str] = []
    own_sim.clear_requests()
    said, data = read(await call(
        _server(own_sim), "acknowledge_alert",
        {"alert_id": alert.id, "duration": "P1DT2H", "comment": "noise"},
        elicitation_callback=_answering("accept", asked=asked),
    ))  # fmt: skip
    assert data["acknowledged"] is True, said
    assert asked == [f"Acknowledge alert {alert.id} for 1 day 2 hours from your yes, with the "
                     "comment 'noise'? Its notifications stop until then."]  # fmt: skip
    until = fixed_now + timedelta(days=1, hours=2)
    assert data["alert"]["acknowledged_until"] == until.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("listed", [False, True])
@pytest.mark.parametrize("action, yes", [("decline", True), ("cancel", True), ("accept", False)])
async def test_no_yes_sends_no_request(own_sim, mode, listed, action, yes) -> None:
    """Whether or not a listing showed the alert first, a no sends nothing at all: the
    question is built from what earlier answers showed."""
    alert = _open_alert(own_sim)
    server = _server(own_sim)
    if listed:
        read(await call(server, "list_alerts", {"limit": 100}))
    before = own_sim.world()
    own_sim.clear_requests()
    result = await call(
        server, "acknowledge_alert",
        {"alert_id": alert.id, "until": "2026-03-03T09:00:00Z", "comment": "noise"},
        elicitation_callback=_answering(action, yes), mode=mode,
    )  # fmt: skip
    said, data = read(result)
    assert data == {"acknowledged": False, "answer": action}
    assert "nothing was sent" in said
    assert own_sim.requests() == [] and own_sim.world() == before


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_that_cannot_ask_is_refused_before_any_request(own_sim, mode) -> None:
    alert = _open_alert(own_sim)
    own_sim.clear_requests()
    args = {"alert_id": alert.id, "duration": "PT1H", "comment": "x"}
    result = await call(_server(own_sim), "acknowledge_alert", args, mode=mode)
    assert result.is_error and "refused" in result.content[0].text
    assert "nothing was sent" in result.content[0].text
    assert own_sim.requests() == []


# (arguments, settings, the names the error starts with)
LIMITS = [
    ({"duration": "P8D"}, {}, "duration"),
    ({"duration": "P2D"}, {"max_ack": timedelta(days=1)}, "duration"),
    ({"duration": "soon"}, {}, "duration"),
    ({"until": "2026-03-03T10:00:00"}, {}, "until"),
    ({}, {}, "until, duration"),
    ({"until": "2026-03-03T10:00:00Z", "duration": "PT1H"}, {}, "until, duration"),
]
# An instant out of range by the server's clock: refused before the question where an
# earlier answer showed that clock, else after the yes, before the PATCH.
LATE = [{"until": "2026-03-12T10:00:00Z"}, {"until": "2026-03-01T10:00:00Z"}]


@pytest.mark.parametrize("when, settings, named", LIMITS)
async def test_the_length_is_checked_before_any_request(own_sim, when, settings, named) -> None:
    """Nothing is asked of the person or the API: the forms and the limit come first."""
    alert = _open_alert(own_sim)
    own_sim.clear_requests()
    asked: list[str] = []
    result = await call(_server(own_sim, **settings), "acknowledge_alert",
                        {"alert_id": alert.id, "comment": "x", **when},
                        elicitation_callback=_answering("accept", asked=asked))  # fmt: skip
    assert result.is_error and f"{named}: " in result.content[0].text, result.content[0].text
    assert own_sim.requests() == [] and asked == []


@pytest.mark.parametrize("when", LATE)
async def test_an_instant_out_of_range_by_the_servers_clock_is_never_sent(own_sim, when):
    alert = _open_alert(own_sim)
    # The server's clock unknown: asked, then refused after the yes, with no write.
    asked: list[str] = []
    own_sim.clear_requests()
    server = _server(own_sim)
    result = await call(server, "acknowledge_alert", {"alert_id": alert.id, "comment": "x", **when},
                        elicitation_callback=_answering("accept", asked=asked))  # fmt: skip
    assert result.is_error and "until: " in result.content[0].text, result.content[0].text
    assert "nothing was sent" in result.content[0].text and len(asked) == 1
    assert _writes(own_sim) == []
    # Known from an earlier answer (that call's): refused before the question, no request.
    asked.clear()
    own_sim.clear_requests()
    result = await call(server, "acknowledge_alert", {"alert_id": alert.id, "comment": "x", **when},
                        elicitation_callback=_answering("accept", asked=asked))  # fmt: skip
    assert result.is_error and "until: " in result.content[0].text, result.content[0].text
    assert own_sim.requests() == [] and asked == []


# ---- no secret anywhere --------------------------------------------------------------------

SECRET_CALLS = [
    ("store_status", {}),
    ("what_runs_out_first", {"top": 3}),
    ("what_runs_out_first", {"project": "nope"}),
    ("list_alerts", {"limit": 2}),
    ("alert_noise", {"top": 2}),
    ("oversized", {}),
    ("explain_alert", {"alert_id": "0" * 24}),
    ("resource_history", {"target": "nowhere:1", "metric": "CONNECTIONS"}),
    ("acknowledge_alert", {"alert_id": "0" * 24, "duration": "PT1H", "comment": "x"}),
]


async def test_no_secret_in_any_result_error_or_log(sim, monkeypatch, caplog, capsys) -> None:
    """The profile's key (from the environment) and a wrong one, each planted in the
    configuration: neither in any result, error or log line, whether the calls succeed or
    the server refuses the key (401 on every call)."""
    wrong = "planted-wrong-key-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
    monkeypatch.setenv("PLANTED_KEY", sim.private_key)
    monkeypatch.setenv("WRONG_KEY", wrong)
    for profile, env in (("planted", "PLANTED_KEY"), ("wrong", "WRONG_KEY")):
        assert cli.main(["config", "init", "--profile", profile, "--base-url", sim.base_url,
                         "--public-key", sim.public_key, "--private-key-env", env,
                         "--no-input"]) == 0  # fmt: skip
    caplog.set_level(logging.DEBUG)
    seen = []
    for profile in ("planted", "wrong"):
        client = opsapi.Client.from_profile(profile, max_retries=0)
        fleet = Fleet(client, Settings(allow_writes=True, refresh_seconds=None))
        server = build_server(fleet)
        seen += [repr(client), repr(fleet), repr(fleet.settings)]
        for name, args in SECRET_CALLS:
            result = await call(server, name, args, elicitation_callback=_answering("accept"))
            seen.append(result.content[0].text)
        fails = [t for t in seen[-len(SECRET_CALLS) :] if "HTTP 401" in t]
        if profile == "wrong":  # the refused key's calls failed, saying so
            assert len(fails) >= 5, seen[-len(SECRET_CALLS) :]
    out = capsys.readouterr()
    seen += [caplog.text, out.out, out.err]
    assert {n for n, _ in SECRET_CALLS} == {*READ_ONLY, "acknowledge_alert"}  # every tool
    for text in seen:
        assert sim.private_key not in text and wrong not in text
