"""The capacity report's alert section (``opsapi.report.alerts``) over the seeded alert
history (``sim.alert_truth()``): it names the flapping configuration on its host and the noisy
host, in words a team lead reads (host names, project names, what the alert watches; no ids),
and says so plainly when there are no alerts. The demo's report carries the section
(tests/python/test_notebooks.py, test_report_browser.py)."""

from __future__ import annotations

import doctest
import html.parser
import re

import polars as pl
import pytest

from opsapi import demo
from opsapi.report import alerts as report_alerts
from opsapi.report import html as report_html


class _Tables(html.parser.HTMLParser):
    """The section's visible text, its sentences (``p.said``), its headings and its tables as
    rows of (text, class)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.items: list[str] = []
        self.tables: list[list[list[tuple[str, str]]]] = []
        self.headings: list[str] = []
        self._cell: list[str] | None = None
        self._cls = ""
        self._li: list[str] | None = None
        self._h: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell, self._cls = [], a.get("class") or ""
        elif tag == "p" and a.get("class") == "said":
            self._li = []
        elif tag in ("h2", "h3"):
            self._h = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(("".join(self._cell).strip(), self._cls))
            self._cell = None
        elif tag == "p" and self._li is not None:
            self.items.append("".join(self._li).strip())
            self._li = None
        elif tag in ("h2", "h3") and self._h is not None:
            self.headings.append("".join(self._h).strip())
            self._h = None

    def handle_data(self, data):
        self.text.append(data)
        for buf in (self._cell, self._li, self._h):
            if buf is not None:
                buf.append(data)


@pytest.fixture(scope="module")
def alerts_page(sim):
    """The section rendered from the shared simulator's project alerts and events, as the
    report renders it (its host labels, its table), with the frames behind it."""
    client = sim.client()
    names = {g.id: g.name for g in client.groups.list()}
    hosts = [h for g in names for h in client.hosts.list(g)]
    alerts = client.alerts.list_all().to_polars()
    events = pl.concat([client.events.list(g).to_polars() for g in names], how="diagonal_relaxed")
    host = report_html.labeller([f"{h.hostname}:{h.port}" for h in hosts])
    frames: dict[str, pl.DataFrame] = {}
    body, charts = report_alerts.section(alerts, events, names, host, report_html.table, frames)
    assert charts == []
    page = _Tables()
    page.feed(body)
    return page, frames, host, names, sim.alert_truth(), alerts


def _rows(table):
    return [[text for text, _ in row] for row in table]


def test_the_section_names_the_flapping_configuration_on_its_host(alerts_page):
    page, frames, host, names, truth, _ = alerts_page
    f = truth["flapping"]
    who = host(f["hostname_and_port"])
    assert "." in who and not who.endswith("example.net")  # rs0-0.prod: no shared domain
    # Said first, in a sentence: the host, what flaps and how often.
    assert page.items[0].startswith(
        f"{who} ({names[f['group_id']]}): Connections outside its threshold flaps"
    )
    assert f"re-opening {f['episodes'] - 1} times within 30 minutes" in page.items[0]
    # And in the flapping table: one row, the host first, its project, what the alert watches.
    assert page.headings[:2] == ["Alerts: which are noise", "Flapping"]
    header, *rows = _rows(page.tables[0])
    assert header == ["host", "project", "alert", "alerts", "re-openings", "back after"]
    assert rows == [
        [who, names[f["group_id"]], "Connections outside its threshold",
         rows[0][3], str(f["episodes"] - 1), rows[0][5]]
    ]  # fmt: skip
    assert re.fullmatch(r"\d+–\d+ min|\d+ min", rows[0][5])
    assert frames["alert_flapping"]["host"].to_list() == [f["hostname_and_port"]]


def test_the_section_names_the_noisy_host_first(alerts_page):
    page, frames, host, names, truth, alerts = alerts_page
    n = truth["noisy_host"]
    who = host(n["hostname_and_port"])
    assert any(item.startswith(f"{who} ({names[n['group_id']]}) raised ") for item in page.items)
    header, *rows = page.tables[1]
    assert [t for t, _ in header] == [
        "host",
        "project",
        "alerts",
        "share of all alerts",
        "vs the typical host",
        "its commonest alert",
    ]
    top = [t for t, _ in rows[0]]
    assert top[:2] == [who, names[n["group_id"]]]
    assert int(top[2]) >= n["alerts"] and top[3].endswith(" %") and top[4].endswith("×")
    assert re.fullmatch(r"[A-Z][a-z ]+[a-z] \(\d+\)", top[5])  # "Host down (17)"
    # The noisy hosts' figure stands out: the seeded one first, and no host the analysis
    # does not call noisy.
    flagged = [row[0][0] for row in rows if "warning" in row[4][1].split()]
    noisy = frames["alert_hosts"].filter("noisy")["host"].to_list()
    assert flagged[0] == who and flagged == [host(h) for h in noisy]
    assert frames["alert_hosts"]["alerts"].sum() <= alerts.height


def test_the_noisiest_configurations_in_words(alerts_page):
    page, frames, _, names, _, alerts = alerts_page
    header, *rows = _rows(page.tables[2])
    assert header[:4] == ["alert", "project", "alerts", "share of all alerts"]
    assert len(rows) == 5
    counts = [int(r[2]) for r in rows]
    assert counts == sorted(counts, reverse=True)
    assert all(r[1] in names.values() for r in rows)
    assert all(r[0] and r[0][0].isupper() and "_" not in r[0] for r in rows)
    for r in rows:  # the shares, durations and percentages as people read them
        assert r[3].endswith(" %") and re.fullmatch(r"(\d+ min|[\d.]+ h|[\d.]+ days)?", r[4])


def test_no_ids_in_the_section(alerts_page):
    page, *_ = alerts_page
    text = " ".join(page.text)
    assert not re.findall(r"\b[0-9a-f]{24}\b|\b[0-9a-f]{32}\b", text)
    assert "None" not in text and "null" not in text and "_" not in text


def test_without_alerts_the_section_says_so():
    host = report_html.labeller([])
    frames: dict[str, pl.DataFrame] = {}
    body, _ = report_alerts.section(pl.DataFrame(), None, {}, host, report_html.table, frames)
    assert "The projects hold no alerts." in body and "<table" not in body
    assert report_alerts.section(None, None, {}, host, report_html.table, frames) == ("", [])


@pytest.mark.parametrize("module", [report_alerts, report_html, demo], ids=lambda m: m.__name__)
def test_the_examples_run(module):
    # The words the section, the page and the demo print, shown in their docstrings, are what
    # they say.
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
