"""Key columns are Categorical (issue 14): frames of different calls join, filter, concatenate,
group and compare with plain strings, with no string cache set up; list frames' identifiers
use the same dtype. Runs on the oldest polars the package allows too (.ci/other-pythons)."""

from __future__ import annotations

import polars as pl
import pytest

KEYS = ["group_id", "host_id", "process_id", "partition_name", "database_name", "measurement"]
# A day of hourly points ending at the simulators' fixed clock, which stands on the hour:
# both ends are on the grid, so 25 of them, at whatever hour the suite runs.
POINTS = 25


@pytest.fixture(scope="module")
def pulls(sim):
    """Two pulls with different targets and metrics: their categories come in different
    orders."""
    client = sim.client()
    g = sim.group_ids[0]
    hosts = client.hosts.list(g)
    ids = [h.id for h in hosts]
    a = client.measurements.fleet(
        [(g, h) for h in ids[:3]], granularity="PT1H", period="P1D", metrics=["CONNECTIONS"]
    )
    b = client.measurements.fleet(
        [(g, h) for h in reversed(ids[2:])],
        granularity="PT1H",
        period="P1D",
        metrics=["OPCOUNTER_CMD", "CONNECTIONS"],
    )
    return hosts, a, b


def test_every_key_column_is_categorical(pulls):
    _, a, b = pulls
    for frame in (a, b):
        assert [frame.schema[k] for k in [*KEYS, "units"]] == [pl.Categorical] * 7
        assert frame.schema["timestamp"] == pl.Datetime("ms", "UTC")


def test_frames_of_different_pulls_concatenate_group_and_join(pulls):
    hosts, a, b = pulls
    both = pl.concat([a, b])
    assert both.height == a.height + b.height
    assert both.schema["host_id"] == pl.Categorical
    per_host = both.group_by("host_id").len()
    assert set(per_host.get_column("host_id").cast(pl.String)) == {h.id for h in hosts}
    # The host both pulls share, joined on the key columns.
    shared = a.join(b, on=["host_id", "measurement", "timestamp"], suffix="_b")
    assert shared.height == POINTS
    assert shared.get_column("host_id").cast(pl.String).unique().to_list() == [hosts[2].id]
    assert (shared.get_column("value") == shared.get_column("value_b")).all()


def test_key_columns_compare_with_plain_strings(pulls):
    hosts, a, b = pulls
    cmd = b.filter(pl.col("measurement") == "OPCOUNTER_CMD")
    assert cmd.height == 3 * POINTS
    assert b.filter(pl.col("host_id").is_in([hosts[4].id])).height == 2 * POINTS
    assert a.filter(pl.col("partition_name").is_null()).height == a.height


def test_list_frames_identifiers_join_the_measurement_frames(pulls, sim):
    hosts, a, _ = pulls
    host_frame = hosts.to_polars()
    assert host_frame.schema["id"] == pl.Categorical
    assert host_frame.schema["group_id"] == pl.Categorical
    assert host_frame.schema["hostname"] == pl.String
    joined = a.join(host_frame.select("id", "hostname"), left_on="host_id", right_on="id")
    assert joined.height == a.height
    assert set(joined.get_column("hostname")) == {h.hostname for h in hosts[:3]}
    alerts = sim.client().global_alerts.list().to_polars()
    assert {k for k, v in alerts.schema.items() if v == pl.Categorical} >= {"id", "group_id"}


def test_a_users_string_column_joins_after_one_cast(pulls):
    hosts, a, _ = pulls
    mine = pl.DataFrame({"host_id": [hosts[0].id], "owner": ["team-a"]})
    with pytest.raises(pl.exceptions.SchemaError):
        a.join(mine, on="host_id")
    # The cast the README shows.
    joined = a.join(mine.with_columns(pl.col("host_id").cast(pl.Categorical)), on="host_id")
    assert joined.height == POINTS
    assert joined.schema["host_id"] == pl.Categorical


def test_wide_frames_and_single_results_have_categorical_keys(sim):
    client = sim.client()
    g = sim.group_ids[0]
    h = client.hosts.list(g)[0].id
    m = client.measurements.host(g, h, granularity="PT1H", period="P1D", metrics=["CONNECTIONS"])
    long = m.to_polars()
    assert long.schema["measurement"] == pl.Categorical
    assert long.get_column("measurement").cast(pl.String).unique().to_list() == ["CONNECTIONS"]
    wide = client.measurements.fleet(
        [(g, h)], granularity="PT1H", period="P1D", metrics=["CONNECTIONS"], shape="wide"
    )
    assert [wide.schema[k] for k in ["group_id", "host_id"]] == [pl.Categorical] * 2
    assert wide.columns[-1] == "CONNECTIONS"
