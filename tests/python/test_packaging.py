"""What a release ships (issue 26): one version, the portable wheel, a lean sdist and crate,
the licence, the changelog, and a release workflow that passes actionlint.

The wheel checked is the one ``make python-build`` built and installed, which the rest of
the suite runs against; ``make release`` builds the same one into ``dist/``, installs the
sdist into a fresh venv and runs the tests marked ``smoke`` against it (``.ci/smoke``).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import opsapi

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# Where `make python-build` puts its wheels (the Makefile exports CARGO_TARGET_DIR).
WHEELS = (
    Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache" / "opsapi" / "target"))
    / "wheels-opsapi"
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # opsapi depends on tomli there
    import tomli as tomllib


def _manifests() -> tuple[dict, dict]:
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text(encoding="utf-8"))
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return cargo, pyproject


def _tool(name: str) -> str:
    path = BIN / name if (BIN / name).exists() else shutil.which(name)
    if not path:
        pytest.skip(f"{name} is not installed (dependency groups of pyproject.toml; make venv)")
    return str(path)


@pytest.mark.smoke
def test_one_version_cargo_tomls() -> None:
    cargo, pyproject = _manifests()
    version = cargo["package"]["version"]
    # maturin reads it from Cargo.toml; the module reports it (env!("CARGO_PKG_VERSION")).
    assert pyproject["project"]["dynamic"] == ["version"]
    assert "version" not in pyproject["project"]
    assert opsapi.__version__ == version
    assert importlib.metadata.version("opsapi") == version


def test_one_licence_in_both_manifests_with_its_texts() -> None:
    cargo, pyproject = _manifests()
    assert cargo["package"]["license"] == "MIT OR Apache-2.0"
    assert pyproject["project"]["license"] == "MIT OR Apache-2.0"
    assert pyproject["project"]["license-files"] == ["LICENSE-APACHE", "LICENSE-MIT"]
    apache = (REPO / "LICENSE-APACHE").read_text(encoding="utf-8")
    assert "Apache License" in apache and "Version 2.0, January 2004" in apache
    assert "END OF TERMS AND CONDITIONS" in apache
    mit = (REPO / "LICENSE-MIT").read_text(encoding="utf-8")
    assert mit.startswith("MIT License") and "WITHOUT WARRANTY OF" in mit


def test_changelog_has_unreleased_and_this_version() -> None:
    cargo, _ = _manifests()
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[0] == "Unreleased"
    released = [h for h in headings[1:] if re.fullmatch(r"\d+\.\d+\.\d+ - \d{4}-\d{2}-\d{2}", h)]
    assert released == headings[1:], headings  # every other heading: "X.Y.Z - YYYY-MM-DD"
    assert released[0].split(" - ")[0] == cargo["package"]["version"]
    assert "## 0.1.0 - 2026-11-25" in text
    # Keep a Changelog's sections only.
    kinds = set(re.findall(r"^### (.+)$", text, flags=re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds


def _wheel_tags(wheel_file_text: str) -> set[str]:
    return {
        line.split(": ", 1)[1] for line in wheel_file_text.splitlines() if line.startswith("Tag: ")
    }


def _installed_wheel() -> Path:
    """The wheel file the installed opsapi came from (the one `make python-build` built)."""
    tags = _wheel_tags(importlib.metadata.distribution("opsapi").read_text("WHEEL") or "")
    if not any("manylinux" in t for t in tags):
        pytest.skip(f"the installed opsapi ({sorted(tags)}) is a development build (make dev)")
    built = []
    for wheel in WHEELS.glob(f"opsapi-{opsapi.__version__}-*.whl"):
        with zipfile.ZipFile(wheel) as z:
            name = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
            if _wheel_tags(z.read(name).decode()) == tags:
                built.append(wheel)
    assert built, f"the installed opsapi ({sorted(tags)}) is no wheel of {WHEELS}"
    return max(built, key=os.path.getmtime)


def test_the_tested_wheel_is_manylinux2014() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("manylinux is Linux's")
    wheel = _installed_wheel()
    # One abi3 wheel, tagged for glibc 2.17 under both of its names.
    assert wheel.name.startswith(f"opsapi-{opsapi.__version__}-cp39-abi3-"), wheel.name
    assert {"manylinux2014_x86_64", "manylinux_2_17_x86_64"} <= set(
        wheel.name[: -len(".whl")].split("-")[-1].split(".")
    ), wheel.name
    out = subprocess.run(
        [_tool("auditwheel"), "show", str(wheel)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    # The policy the wheel's symbols allow, not only the name it was given.
    assert 'consistent with the following platform tag: "manylinux_2_17_x86_64"' in text, text
    assert 'constrains the platform tag to "manylinux_2_17_x86_64"' in text, text
    glibc = [tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+\.\d+)", text)]
    assert glibc and max(glibc) <= (2, 17), sorted(set(glibc))
    # No library of its own to bundle: only the system's libc, libm, libpthread, libdl.
    libraries = set(re.findall(r"(\S+\.so\.\d+) with versions", text))
    assert libraries <= {
        "libc.so.6",
        "libm.so.6",
        "libpthread.so.0",
        "libdl.so.2",
        "libgcc_s.so.1",
        "librt.so.1",
    }, libraries


# What a Python user needs from the sdist: the Rust sources of the crate, the manifests, the
# Python package, the licence texts and the README (the package's description).
SDIST_ALLOWED = re.compile(
    r"(Cargo\.toml|Cargo\.lock|pyproject\.toml|PKG-INFO|README\.md|CHANGELOG\.md"
    r"|LICENSE-APACHE|LICENSE-MIT|src/.+\.rs|python/opsapi/.+\.(py|pyi)|python/opsapi/py\.typed)"
)


def test_sdist_holds_only_what_the_package_needs(tmp_path) -> None:
    out = subprocess.run(
        [_tool("maturin"), "sdist", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    (sdist,) = tmp_path.glob("opsapi-*.tar.gz")
    assert sdist.name == f"opsapi-{opsapi.__version__}.tar.gz"
    with tarfile.open(sdist) as t:
        names = [m.name for m in t.getmembers() if m.isfile()]
    root = f"opsapi-{opsapi.__version__}/"
    assert all(n.startswith(root) for n in names), names
    files = sorted(n[len(root) :] for n in names)
    extra = [f for f in files if not SDIST_ALLOWED.fullmatch(f)]
    assert not extra, extra
    for unwanted in ("tests/", "bench/", "fuzz/", "notebooks/", "docs/", ".github/", ".ci/"):
        assert not [f for f in files if f.startswith(unwanted)], unwanted
    assert not [f for f in files if f.endswith((".ipynb", ".parquet", ".json", ".png"))]
    for needed in (
        "Cargo.toml",
        "Cargo.lock",
        "pyproject.toml",
        "README.md",
        "LICENSE-APACHE",
        "LICENSE-MIT",
        "src/lib.rs",
        "src/python/mod.rs",
        "python/opsapi/__init__.py",
        "python/opsapi/_native.pyi",
        "python/opsapi/py.typed",
        "python/opsapi/cli/__init__.py",
    ):
        assert needed in files, needed
    # Every module of the Python package and every Rust source of the crate is in it.
    package = sorted(
        str(p.relative_to(REPO))
        for p in (REPO / "python" / "opsapi").rglob("*")
        if p.suffix in (".py", ".pyi") and "__pycache__" not in p.parts
    )
    assert [f for f in files if f.startswith("python/") and f.endswith((".py", ".pyi"))] == package
    rust = sorted(str(p.relative_to(REPO)) for p in (REPO / "src").rglob("*.rs"))
    assert [f for f in files if f.startswith("src/")] == rust
    # Size: sources only (issue 26 states it; about 0.3 MB).
    assert sdist.stat().st_size < 1_000_000, sdist.stat().st_size


def test_crate_package_holds_what_rust_users_need() -> None:
    cargo = shutil.which("cargo")
    if not cargo:
        pytest.skip("cargo is not installed")
    out = subprocess.run(
        [cargo, "package", "--list", "--allow-dirty", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    assert "warning" not in out.stderr, out.stderr
    files = out.stdout.split()
    generated = {".cargo_vcs_info.json", "Cargo.toml.orig"}
    extra = [
        f
        for f in files
        if f not in generated
        and not re.fullmatch(
            r"Cargo\.toml|Cargo\.lock|README\.md|CHANGELOG\.md|LICENSE-APACHE|LICENSE-MIT"
            r"|src/.+\.rs|tests/[^/]+\.rs|tests/(it|sim|promises)/.+\.rs|tests/fixtures/[^/]+"
            r"|fuzz/regressions/[^/]+/[^/]+",
            f,
        )
    ]
    # No Python package or Python tests, benches, fuzz targets or corpora, notebooks or docs;
    # the Rust tests ship with the data they read (`cargo test` works on the package).
    assert not extra, extra
    for tree in ("src", "tests"):
        rust = sorted(str(p.relative_to(REPO)) for p in (REPO / tree).rglob("*.rs"))
        assert sorted(f for f in files if f.startswith(f"{tree}/") and f.endswith(".rs")) == rust
    fixtures = [f for f in files if f.startswith("tests/fixtures/")]
    # Every file directly in tests/fixtures (the documented payloads the Rust tests read); not
    # its folders, the vendored Atlas spec and Ops Manager catalog, whose licence is not the
    # crate's (tests/it/metric_names.rs skips, saying so, without them).
    shipped = sorted(
        str(p.relative_to(REPO)) for p in (REPO / "tests" / "fixtures").iterdir() if p.is_file()
    )
    assert sorted(fixtures) == shipped
    for needed in (
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "LICENSE-APACHE",
        "LICENSE-MIT",
        "CHANGELOG.md",
    ):
        assert needed in files, needed


def test_release_workflow_passes_actionlint() -> None:
    workflow = REPO / ".github" / "workflows" / "release.yml"
    out = subprocess.run(
        [_tool("actionlint"), "-no-color", str(workflow)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_release_workflow_builds_every_platform_and_publishes_only_on_tags() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (mkdocs brings it)")
    flow = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    jobs = flow["jobs"]
    matrix = {m["name"]: m for m in jobs["wheels"]["strategy"]["matrix"]["include"]}
    assert set(matrix) == {
        "linux-x86_64",
        "linux-aarch64",
        "macos-arm64",
        "macos-x86_64",
        "windows-x86_64",
    }
    assert matrix["linux-x86_64"]["manylinux"] == matrix["linux-aarch64"]["manylinux"] == "2014"
    steps = jobs["wheels"]["steps"]
    assert any(".ci/smoke" in s.get("run", "") for s in steps)  # every wheel smoke-tested
    assert any(".ci/smoke" in s.get("run", "") for s in jobs["sdist"]["steps"])
    assert any("cargo publish --dry-run" in s.get("run", "") for s in jobs["crate"]["steps"])
    for name, action in (
        ("publish-pypi", "pypa/gh-action-pypi-publish@"),
        ("publish-crate", "rust-lang/crates-io-auth-action@"),
    ):
        job = jobs[name]
        assert job["if"] == "startsWith(github.ref, 'refs/tags/v')"
        assert job["permissions"] == {"id-token": "write"}  # trusted publishing, no token
        assert {"wheels", "sdist", "crate"} <= set(job["needs"])
        assert any(s.get("uses", "").startswith(action) for s in job["steps"])
    # Nothing else may mint tokens; the rest reads.
    assert flow["permissions"] == {"contents": "read"}
    assert [n for n, j in jobs.items() if "permissions" in j] == ["publish-pypi", "publish-crate"]
