"""opsapi.alerts_analysis over the seeded alert history (``sim.alert_truth()``): the flapping
configuration and the noisy host are found and nothing healthy is flagged; the per-configuration
figures agree with the alerts and the acknowledgement events they are computed from."""

from __future__ import annotations

import math
import statistics
from collections import Counter

import polars as pl
import pytest

from opsapi import alerts_analysis as aa


def quantile(xs: list[float], q: float) -> float:
    """Linear interpolation between the closest ranks (polars' "linear")."""
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


@pytest.fixture(scope="module")
def history(sim):
    """Every project alert (the objects and their frame), the projects' events' frame, and the
    truth."""
    client = sim.client()
    alerts = client.alerts.list_all()
    events = pl.concat([client.events.list(g).to_polars() for g in sim.group_ids])
    return alerts, alerts.to_polars(), events, sim.alert_truth()


def test_the_flapping_configuration_is_found_and_nothing_else(history):
    alerts, frame, _, truth = history
    f = truth["flapping"]
    flaps = aa.flapping(frame)
    flagged = flaps.filter("flapping")
    assert flagged.height == 1
    row = flagged.row(0, named=True)
    assert (str(row["alert_config_id"]), row["host"]) == (
        f["alert_config_id"],
        f["hostname_and_port"],
    )
    assert (row["metric_name"], row["event_type_name"]) == (
        "CONNECTIONS",
        "OUTSIDE_METRIC_THRESHOLD",
    )
    assert row["reopens"] == f["episodes"] - 1
    assert row["longest_gap_minutes"] <= f["longest_gap_minutes"]
    assert 0 < row["shortest_gap_minutes"] <= row["longest_gap_minutes"]
    mine = [
        a
        for a in alerts
        if a.alert_config_id == f["alert_config_id"]
        and a.hostname_and_port == f["hostname_and_port"]
    ]
    assert row["alerts"] == len(mine) >= f["episodes"]
    # Whatever else re-opened once is not flagged; a tighter window sees no flapping.
    assert flaps.filter(~pl.col("flapping"))["reopens"].to_list() == [1] * (flaps.height - 1)
    assert aa.flapping(frame, within="1m").filter("flapping").height == 0
    assert aa.flapping(frame, min_reopens=f["episodes"]).filter("flapping").height == 0


def test_the_noisy_host_is_the_noisiest_and_the_only_one_flagged(history):
    alerts, frame, _, truth = history
    n = truth["noisy_host"]
    top = aa.noisiest(frame, by="host", top=5)
    assert top.height == 5
    assert top["host"][0] == n["hostname_and_port"]
    # Flagged: the noisy host, and the flapping one for its flapping alone; no healthy host.
    flapper = truth["flapping"]["hostname_and_port"]
    assert top.filter("noisy")["host"].to_list() == [n["hostname_and_port"], flapper]
    calm = frame.filter(pl.col("alert_config_id") != truth["flapping"]["alert_config_id"])
    again = aa.noisiest(calm, by="host", top=20)
    assert again.filter("noisy")["host"].to_list() == [n["hostname_and_port"]]
    per_host = Counter(a.hostname_and_port for a in alerts if a.hostname_and_port)
    assert top["alerts"].to_list() == [per_host[h] for h in top["host"]]
    assert per_host[n["hostname_and_port"]] >= n["alerts"]
    assert top["share"].to_list() == pytest.approx([per_host[h] / len(alerts) for h in top["host"]])
    typical = statistics.median(per_host.values())
    assert top["times_typical"][0] == pytest.approx(per_host[n["hostname_and_port"]] / typical)


def test_the_noisiest_configurations_with_their_share(history):
    alerts, frame, _, truth = history
    top = aa.noisiest(frame, by="alert_config", top=3)
    per_config = Counter(a.alert_config_id for a in alerts)
    assert top["alerts"].to_list() == sorted(per_config.values(), reverse=True)[:3]
    assert top["share"].to_list() == pytest.approx([c / len(alerts) for c in top["alerts"]])
    assert top.columns[:3] == ["alert_config_id", "event_type_name", "alerts"]
    with pytest.raises(ValueError, match="by"):
        aa.noisiest(frame, by="cluster")


def test_noise_per_configuration_agrees_with_its_alerts_and_acknowledgements(history):
    alerts, frame, events, truth = history
    table = aa.noise(frame, events=events)
    assert table["alerts"].sum() == len(alerts)
    assert table["alerts"].to_list() == sorted(table["alerts"].to_list(), reverse=True)
    acked_at = {a["alert_id"]: a["at"] for a in truth["acknowledged"]}
    # The configuration with the most acknowledged alerts, checked figure by figure.
    by_config = Counter(a.alert_config_id for a in alerts if a.id in acked_at)
    config, _ = by_config.most_common(1)[0]
    mine = [a for a in alerts if a.alert_config_id == config]
    row = table.filter(pl.col("alert_config_id") == config).row(0, named=True)
    ack = [(acked_at[a.id] - a.created).total_seconds() / 60 for a in mine if a.id in acked_at]
    opened = [(a.resolved - a.created).total_seconds() / 60 for a in mine if a.resolved]
    acknowledged = [a for a in mine if a.id in acked_at or a.acknowledging_username]
    closed_alone = [a for a in mine if a.status == "CLOSED" and a not in acknowledged]
    assert row["alerts"] == len(mine)
    assert row["ack_minutes_p50"] == pytest.approx(quantile(ack, 0.5))
    assert row["ack_minutes_p95"] == pytest.approx(quantile(ack, 0.95))
    assert row["open_minutes_p50"] == pytest.approx(quantile(opened, 0.5))
    assert row["open_minutes_p95"] == pytest.approx(quantile(opened, 0.95))
    assert row["acknowledged_share"] == pytest.approx(len(acknowledged) / len(mine))
    assert row["closed_unacknowledged_share"] == pytest.approx(len(closed_alone) / len(mine))
    # The flapping configuration: every re-opening closed by itself, nobody acknowledging.
    f = truth["flapping"]
    flapping_row = table.filter(pl.col("alert_config_id") == f["alert_config_id"]).row(
        0, named=True
    )
    assert flapping_row["closed_unacknowledged_share"] >= f["episodes"] / flapping_row["alerts"]


def test_without_events_only_showing_acknowledgements_count(history):
    alerts, frame, _, _ = history
    table = aa.noise(frame)
    assert table["ack_minutes_p50"].null_count() == table.height
    showing = Counter(a.alert_config_id for a in alerts if a.acknowledging_username)
    got = {
        str(r["alert_config_id"]): r["acknowledged_share"] * r["alerts"]
        for r in table.iter_rows(named=True)
    }
    assert {k: round(v) for k, v in got.items() if v} == dict(showing)
    # An acknowledged_at column of one's own takes the events' place.
    own = frame.with_columns(pl.col("created").alias("acknowledged_at"))
    assert aa.noise(own)["ack_minutes_p95"].to_list() == [0.0] * table.height


def test_global_alerts_work_too(sim, client):
    frame = client.global_alerts.list().to_polars()
    table = aa.noise(frame, by="event_type_name")
    assert table["alerts"].sum() == frame.height
    assert table.columns[0] == "event_type_name"
    assert aa.flapping(frame).filter("flapping").height == 0  # the history is project-only


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    """README.md's example of project alerts, contexts and noise runs as written."""
    from pathlib import Path

    pytest.importorskip("altair", reason="the example writes a chart (pip install altair)")

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Project alerts, an alert in its context")[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 (the README's own example)
    out = capsys.readouterr().out
    assert (tmp_path / "alert.html").is_file()
    assert out.splitlines()[0].split()[:2] == ["host", "CONNECTIONS"]
    from opsapi.testing import Simulator

    with Simulator(seed=0) as sim:  # the README's world
        flapper = sim.alert_truth()["flapping"]["hostname_and_port"]
    assert flapper.split(".")[0] in out  # the flapping host (polars cuts long names)


def test_on_atlas_alerts_are_keyed_by_their_hostname_and_port(sim, fixed_now):
    """Atlas's alerts carry no ``hostId``: the analysis keys them by ``hostnameAndPort`` and
    finds on them what it finds on Ops Manager's same alerts (Atlas serves none of the
    standalone processes' alerts), the noisy host first."""
    from opsapi.testing import Simulator

    with Simulator(flavour="atlas", now=fixed_now) as atlas:
        frame = atlas.client().alerts.list_all().to_polars()
        noisy = atlas.alert_truth()["noisy_host"]["hostname_and_port"]
    assert frame["host_id"].null_count() == frame.height
    ids = frame["id"].cast(pl.String)
    same = sim.client().alerts.list_all().to_polars()
    same = same.filter(pl.col("id").cast(pl.String).is_in(ids.implode()))
    assert same.height == frame.height and same["host_id"].null_count() < same.height
    for table in (aa.noisiest, aa.flapping):
        assert table(frame).to_dicts() == table(same).to_dicts(), table.__name__
    top = aa.noisiest(frame, by="host").row(0, named=True)
    assert (top["host"], top["noisy"]) == (noisy, True)
