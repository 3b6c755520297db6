"""The documentation site as a person sees it: site/ (``make docs``) opened in headless Chromium.

Checked: every page of the nav renders (its title, the navigation, code as code, no error
of mkdocstrings), the API reference carries the docstrings of the compiled module, the
search index covers every page, nothing is fetched from another site (the site works
offline), no internal link is broken (every ``href`` and ``src`` of every page, the Rust API
included, and every ``#fragment`` of the guides), and a screenshot of the getting-started
page is kept as ``out/docs-getting-started.png``.

Needs the built site (``make docs``; ``make test`` builds it first) and Debian's
``chromium`` (``.ci/run`` installs it); skipped, saying so, without them.
"""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import struct
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "site"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
NAV = [
    "index.html",
    "getting-started.html",
    "guides/capacity.html",
    "guides/alerts.html",
    "guides/project-alerts.html",
    "guides/store.html",
    "guides/atlas.html",
    "guides/fleets.html",
    "guides/tls.html",
    "guides/testing.html",
    "reference/clients.html",
    "reference/resources.html",
    "reference/models.html",
    "reference/errors.html",
    "reference/testing.html",
    "reference/capacity.html",
    "reference/alerts_analysis.html",
    "reference/dask.html",
    "reference/config.html",
    "reference/cli.html",
    "rust.html",
    "changelog.html",
]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site() -> Path:
    if not (SITE / "index.html").exists():
        pytest.skip("site/ is not built (make docs)")
    return SITE


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does)")


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"  # a fresh --user-data-dir per run
    return subprocess.run(
        [_chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


class _Page(html.parser.HTMLParser):
    """Links, ids, headings and classes of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.classes: set[str] = set()
        self.h1: list[str] = []
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for attr in ("href", "src"):
            if a.get(attr) and not (tag == "a" and attr == "src"):
                self.links.append(a[attr])
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        self.classes.update((a.get("class") or "").split())
        self._in_h1 = tag == "h1" or self._in_h1 and tag != "h1"
        if tag == "h1":
            self.h1.append("")

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.h1[-1] += data


def _parse(text: str) -> _Page:
    p = _Page()
    p.feed(text)
    return p


@pytest.fixture(scope="module")
def doms(site, tmp_path_factory) -> dict[str, str]:
    """Each nav page's DOM after Chromium has loaded it (scripts run)."""
    tmp = tmp_path_factory.mktemp("chromium")
    out = {}
    for page in NAV:
        r = _run(tmp, "--dump-dom", (site / page).as_uri())
        assert r.returncode == 0, (page, r.stderr[-2000:])
        out[page] = r.stdout
    return out


def test_every_nav_page_renders(doms) -> None:
    for page, dom in doms.items():
        p = _parse(dom)
        assert p.h1 and p.h1[0].strip(), page  # its title
        assert "md-nav" in p.classes and "md-content" in p.classes, page
        assert "md-search__input" in p.classes, page  # the search box is there
        # mkdocstrings says what it could not render in the page itself.
        assert "Could not collect" not in dom, page
    gs = _parse(doms["getting-started.html"])
    assert gs.h1[0].strip().startswith("Getting started")
    assert "highlight" in gs.classes  # code shown as code
    assert "Simulator(seed=0)" in re.sub(r"<[^>]+>", "", doms["getting-started.html"])


def test_search_opened_from_disk_says_how_to_serve_the_site(doms) -> None:
    # From file:// the browser lets no page read the search index (docs/assets/file-search.js).
    for page in ("index.html", "reference/cli.html"):
        assert 'placeholder="Search: serve the site first"' in doms[page], page
    assert "python -m http.server -d site" in doms["index.html"]


def test_the_cli_reference_page_links_every_command(doms) -> None:
    page = _parse(doms["reference/cli.html"])
    for name in ("alerts", "projects", "sync", "store", "sim"):
        assert f"opsapi-{name}" in page.ids, name  # each command's heading, an anchor
        assert f"#opsapi-{name}" in page.links, name  # linked from the list of commands


def test_api_reference_has_the_native_docstrings(doms) -> None:
    # Written in Rust (src/python/api/*.rs), read from the compiled module.
    resources = doms["reference/resources.html"]
    assert "GET /groups/{group_id}/hosts/{host_id}" in resources
    assert "every page" in resources
    clients = doms["reference/clients.html"]
    assert 'id="opsapi.Client"' in clients or 'id="opsapi._native.Client"' in clients
    # Doctests shown as code, their directives dropped.
    assert "doctest: +SKIP" not in resources
    assert "&gt;&gt;&gt;" in resources
    errors = doms["reference/errors.html"]
    assert "NotFoundError" in errors and "RateLimitError" in errors


def test_search_index_covers_every_page(site) -> None:
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    pages = {d["location"].split("#")[0] for d in index["docs"]}
    assert set(NAV) <= pages, set(NAV) - pages
    assert any("acknowledge" in d["text"] for d in index["docs"])


def test_nothing_is_fetched_from_another_site(site) -> None:
    for page in NAV:
        p = _parse((site / page).read_text(encoding="utf-8"))
        remote = [
            link
            for link in p.links
            if urlsplit(link).scheme in ("http", "https") and _is_resource(link, page, site)
        ]
        assert not remote, (page, remote)
    assert "fonts.googleapis" not in (site / "index.html").read_text(encoding="utf-8")


def _is_resource(link: str, page: str, site: Path) -> bool:
    """Whether ``link`` of ``page`` is loaded with it (a stylesheet, script, font or image)
    rather than followed."""
    text = (site / page).read_text(encoding="utf-8")
    i = text.find(link)
    before = text[max(0, i - 200) : i]
    tag = before[before.rfind("<") :].split()[0] if "<" in before else ""
    return tag in ("<script", "<img", "<link") and 'rel="canonical"' not in before[-100:]


def test_no_internal_link_is_broken(site) -> None:
    # 404.html is served for any missing path, so its links are absolute (/assets/...).
    html_files = sorted(f for f in site.rglob("*.html") if f.name != "404.html")
    assert len(html_files) > len(NAV)
    parsed: dict[Path, _Page] = {}

    def page(path: Path) -> _Page:
        if path not in parsed:
            parsed[path] = _parse(path.read_text(encoding="utf-8", errors="replace"))
        return parsed[path]

    broken = []
    checked = 0
    for f in html_files:
        for link in page(f).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            if (
                "rust" in f.relative_to(site).parts[:1]
                and parts.path
                and not Path(parts.path).suffix
            ):
                # rustdoc makes only links to files; a bare relative one is doc text copied from
                # another crate's blanket impl (tracing's `Instrument`), relative to that crate.
                continue
            target = (f.parent / unquote(parts.path)).resolve() if parts.path else f
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            if not target.exists() or SITE.resolve() not in target.parents:
                broken.append((str(f.relative_to(site)), link))
            elif parts.fragment and target.suffix == ".html" and "rust" not in target.parts:
                # The guides' and reference's anchors (rustdoc's are made by its scripts).
                if unquote(parts.fragment) not in page(target).ids:
                    broken.append((str(f.relative_to(site)), link))
    assert checked > 1000 and not broken, broken[:20]


def test_the_rust_api_is_linked_and_built(site) -> None:
    links = _parse((site / "rust.html").read_text(encoding="utf-8")).links
    assert "rust/opsapi/index.html" in links
    crate = (site / "rust" / "opsapi" / "index.html").read_text(encoding="utf-8")
    assert "Crate opsapi" in crate or "Crate <span>opsapi" in crate


def test_screenshot_of_getting_started_saved_under_out(site, tmp_path) -> None:
    shot = REPO / "out" / "docs-getting-started.png"
    shot.parent.mkdir(exist_ok=True)
    shot.unlink(missing_ok=True)
    r = _run(
        tmp_path,
        "--window-size=1280,1600",
        f"--screenshot={shot}",
        (site / "getting-started.html").as_uri(),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 30_000
    length, kind, width, height = struct.unpack(">I4sII", data[8:24])
    assert (length, kind) == (13, b"IHDR")
    scale = width / 1280
    assert scale in (1, 1.5, 2, 3) and height == 1600 * scale, (width, height)
