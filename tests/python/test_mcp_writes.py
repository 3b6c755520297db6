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
    alert = _open_alert(own_sim)
    asked: list[str] = []
    own_sim.clear_requests()
    result = await call(
        _server(own_sim), "acknowledge_alert",
        {"alert_id": alert.id, "duration": "PT4H", "comment": "disk resize tonight"},
        elicitation_callback=_answering("accept", asked=asked), mode=mode,
    )  # fmt: skip
    said, data = read(result)
    assert data["acknowledged"] is True, said
    until = fixed_now + timedelta(hours=4)
    assert data["alert"]["acknowledged_until"] == until.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert data["alert"]["acknowledgement_comment"] == "disk resize tonight"
    [patch] = _writes(own_sim)
    assert patch["method"] == "PATCH" and patch["path"].endswith(f"/alerts/{alert.id}")
    assert b'"acknowledgementComment":"disk resize tonight"' in patch["body"]
    world = {a["id"]: a for a in own_sim.world()["project_alerts"]}[alert.id]
    assert world["acknowledgement_comment"] == "disk resize tonight"
    # What the person was asked: which alert, where, until when, and why.
    [message] = set(asked)
    for said_part in (alert.id, alert.hostname_and_port, "2026-03-02 14:00 UTC",
                      "'disk resize tonight'"):  # fmt: skip
        assert said_part in message, message


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action, yes", [("decline", True), ("cancel", True), ("accept", False)])
async def test_no_yes_sends_no_write(own_sim, mode, action, yes) -> None:
    alert = _open_alert(own_sim)
    before = own_sim.world()
    own_sim.clear_requests()
    result = await call(
        _server(own_sim), "acknowledge_alert",
        {"alert_id": alert.id, "duration": "P1D", "comment": "noise"},
        elicitation_callback=_answering(action, yes), mode=mode,
    )  # fmt: skip
    said, data = read(result)
    assert data == {"acknowledged": False, "answer": action}
    assert "nothing was sent" in said
    # The alert was read (to tell the person what they were asked about); nothing written.
    assert _writes(own_sim) == [] and own_sim.world() == before


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_that_cannot_ask_is_refused_before_any_request(own_sim, mode) -> None:
    alert = _open_alert(own_sim)
    own_sim.clear_requests()
    args = {"alert_id": alert.id, "duration": "PT1H", "comment": "x"}
    result = await call(_server(own_sim), "acknowledge_alert", args, mode=mode)
    assert result.is_error and "refused" in result.content[0].text
    assert "nothing was sent" in result.content[0].text
    assert own_sim.requests() == []


# (arguments, settings, the names the error starts with, whether it needs the server's clock)
LIMITS = [
    ({"duration": "P8D"}, {}, "duration", False),
    ({"duration": "P2D"}, {"max_ack": timedelta(days=1)}, "duration", False),
    ({"duration": "soon"}, {}, "duration", False),
    ({"until": "2026-03-03T10:00:00"}, {}, "until", False),
    ({}, {}, "until, duration", False),
    ({"until": "2026-03-03T10:00:00Z", "duration": "PT1H"}, {}, "until, duration", False),
    ({"until": "2026-03-12T10:00:00Z"}, {}, "until", True),
    ({"until": "2026-03-01T10:00:00Z"}, {}, "until", True),
]


@pytest.mark.parametrize("when, settings, named, clock", LIMITS)
async def test_the_length_is_checked_before_the_alert_is_read(own_sim, when, settings, named,
                                                               clock) -> None:  # fmt: skip
    """Nothing is asked of the alert, let alone written: the forms are checked before any
    request, an instant against the server's clock (the projects' listing brings it)."""
    alert = _open_alert(own_sim)
    own_sim.clear_requests()
    result = await call(_server(own_sim, **settings), "acknowledge_alert",
                        {"alert_id": alert.id, "comment": "x", **when},
                        elicitation_callback=_answering("accept"))  # fmt: skip
    assert result.is_error and f"{named}: " in result.content[0].text, result.content[0].text
    asked = [(r["method"], r["path"]) for r in own_sim.requests() if r["authorized"]]
    assert asked == ([("GET", "/api/public/v1.0/groups")] if clock else [])


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
