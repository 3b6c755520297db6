"""The capacity report a team lead reads (``make demo``, ``python -m opsapi.demo``): one HTML
file that works offline.

It opens with the answer (what runs out first, where and when, per deployment), then the
headroom table (one row per deployment, the days left of each resource, coloured by
urgency), a chart per finding (the series, its trend, the day it crosses the limit, now and
every threshold the finding names), the disks closest to full and the databases behind their
growth, which of the projects' alerts are noise, and every flagged host. Every figure comes
from :mod:`opsapi.capacity`'s public functions.

- ``sections.py``: :class:`ReportData`, :func:`render` and the sections;
- ``charts.py``: the charts (Altair, Vega-Lite), embedded with the Vega libraries inline
  (``vl-convert``): no request leaves the page;
- ``alerts.py``: the alert section (``opsapi.alerts_analysis`` computes its figures);
- ``html.py``: tables, numbers, dates and host names, the stylesheet and the page.

Needs ``altair`` and ``vl-convert-python``.

Example::

    >>> from opsapi.report import ReportData, render
    >>> html = render(ReportData(host_frame, disk_frame, hosts, names))  # doctest: +SKIP
"""

from __future__ import annotations

from .sections import ReportData, render

__all__ = ["ReportData", "render"]
