"""A client nobody here wrote, used as its users use it, against the built-in simulator.

The PyPI ``opsmanager`` package (requests + HTTPDigestAuth, validated by its author against
the live service) must list projects, hosts, disks, alert configurations and events, read a
host, an event and the open alerts of a configuration, and pull host and disk measurements
without an error.

The ``sim`` fixture (tests/python/conftest.py) is ``opsapi.testing.Simulator(seed=0)`` with
``base_url``, ``public_key``, ``private_key`` and ``group_ids``.
"""

import pytest

opsmanager = pytest.importorskip("opsmanager")


@pytest.fixture
def om(sim):
    # The simulator may be shared by the session: start from no standing faults.
    if hasattr(sim, "set_faults"):
        sim.set_faults()
    client = opsmanager.OpsManagerClient(
        base_url=sim.base_url,
        public_key=sim.public_key,
        private_key=sim.private_key,
        rate_limit=0,
        retry_count=0,
        timeout=30.0,
    )
    try:
        yield client
    finally:
        client.close()


def _as_dict(obj):
    """The package returns typed objects by default; compare on the fields we need."""
    return obj if isinstance(obj, dict) else vars(obj)


def _field(obj, *names):
    d = _as_dict(obj)
    for n in names:
        if n in d and d[n] is not None:
            return d[n]
    raise AssertionError(f"none of {names} in {sorted(d)}")


def test_projects_hosts_disks(om, sim):
    projects = om.projects.list()
    ids = [_field(p, "id") for p in projects]
    assert ids == list(sim.group_ids)
    group = ids[0]
    project = om.projects.get(group)
    assert _field(project, "id") == group

    hosts = om.deployments.list_hosts(project_id=group)
    assert len(hosts) == 5
    host_id = _field(hosts[0], "id")
    host = om.deployments.get_host(project_id=group, host_id=host_id)
    assert _field(host, "id") == host_id
    assert _field(host, "hostname").endswith(".example.net")
    assert _field(host, "type_name", "typeName")

    disks = om.deployments.list_disks(project_id=group, host_id=host_id)
    names = [_field(d, "partition_name", "partitionName") for d in disks]
    assert "data" in names


def test_alert_configs_open_alerts_and_events(om, sim):
    group = sim.group_ids[0]
    configs = om.alert_configurations.list(project_id=group)
    assert len(configs) >= 1
    found_open = 0
    for cfg in configs:
        alerts = om.alert_configurations.get_open_alerts(
            project_id=group, alert_config_id=_field(cfg, "id")
        )
        for a in alerts:
            assert _field(a, "status") == "OPEN"
            found_open += 1
    assert found_open >= len(configs)

    events = om.events.list_project_events(project_id=group)
    assert len(events) >= 20
    event_id = _field(events[0], "id")
    event = om.events.get_project_event(project_id=group, event_id=event_id)
    assert _field(event, "id") == event_id


def test_host_and_disk_measurements(om, sim):
    group = sim.group_ids[0]
    hosts = om.deployments.list_hosts(project_id=group)
    host_id = _field(hosts[0], "id")

    m = om.measurements.host(
        project_id=group,
        host_id=host_id,
        granularity="PT1M",
        period="PT1H",
        metrics=["CONNECTIONS", "OPCOUNTER_QUERY"],
    )
    measurements = _field(m, "measurements")
    assert len(measurements) == 2
    first = measurements[0]
    points = _field(first, "data_points", "dataPoints")
    assert 59 <= len(points) <= 61

    raw = om.measurements.host(
        project_id=group, host_id=host_id, granularity="PT5M", period="P1D", as_obj=False
    )
    assert raw["granularity"] == "PT5M"
    assert len(raw["measurements"]) >= 30

    disk = om.measurements.disk(
        project_id=group,
        host_id=host_id,
        partition_name="data",
        granularity="PT1H",
        period="P2D",
    )
    disk_ms = _field(disk, "measurements")
    assert len(disk_ms) == 9
    raw = om.measurements.disk(
        project_id=group,
        host_id=host_id,
        partition_name="data",
        granularity="P1D",
        period=None,  # the package defaults to period="P1D"
        start="2024-05-01T00:00:00Z",
        end="2024-05-10T00:00:00Z",
        as_obj=False,
    )
    assert raw["partitionName"] == "data"
