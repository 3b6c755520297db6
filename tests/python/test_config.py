"""Profiles: `opsapi config init`, `opsapi --profile NAME ...`, `Client.from_profile(NAME)`.

Every test writes its own config file ($OPSAPI_CONFIG, set by conftest's autouse fixture).
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")

from conftest import FIXED_NOW

import opsapi  # noqa: E402
from opsapi import cli, config  # noqa: E402
from opsapi.testing import Simulator  # noqa: E402


@pytest.fixture
def psim(monkeypatch):
    with Simulator(seed=0, projects=1, hosts_per_project=2, now=FIXED_NOW) as s:
        for name in ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY"):
            monkeypatch.delenv(name, raising=False)
        yield s


def run(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    captured = capsys.readouterr()
    return code, out.getvalue() + captured.out, captured.err


def init_env_profile(capsys, sim, name: str = "prod", env: str = "PROD_KEY") -> tuple[int, str]:
    code, out, err = run(
        capsys,
        "config",
        "init",
        "--profile",
        name,
        "--base-url",
        sim.base_url,
        "--public-key",
        sim.public_key,
        "--private-key-env",
        env,
        "--no-input",
    )
    return code, err


def test_config_path_respects_xdg_and_override(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("OPSAPI_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config.config_path() == tmp_path / "xdg" / "opsapi" / "config.toml"
    monkeypatch.setenv("OPSAPI_CONFIG", str(tmp_path / "other.toml"))
    assert config.config_path() == tmp_path / "other.toml"


def test_init_writes_toml_without_the_key_and_from_profile_connects(
    psim, capsys, monkeypatch
) -> None:
    code, err = init_env_profile(capsys, psim)
    assert code == 0, err
    path = config.config_path()
    text = path.read_text()
    assert text == (
        "[prod]\n"
        f'base_url = "{psim.base_url}"\n'
        f'public_key = "{psim.public_key}"\n'
        'private_key_env = "PROD_KEY"\n'
    )
    assert psim.private_key not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    monkeypatch.setenv("PROD_KEY", psim.private_key)
    client = opsapi.Client.from_profile("prod", max_retries=0)
    assert isinstance(client, opsapi.Client)
    assert [g.id for g in client.groups.list()] == list(psim.group_ids)
    aclient = opsapi.AsyncClient.from_profile("prod")
    assert isinstance(aclient, opsapi.AsyncClient)
    assert psim.private_key not in repr(client)


def test_profile_flag_drives_the_cli_and_output_json(psim, capsys, monkeypatch) -> None:
    assert init_env_profile(capsys, psim)[0] == 0
    monkeypatch.setenv("PROD_KEY", psim.private_key)
    psim.clear_requests()
    code, out, err = run(capsys, "--profile", "prod", "alerts", "list", "--output", "json")
    assert code == 0, err
    assert {a["id"] for a in json.loads(out)} == {a.id for a in psim.client().global_alerts.list()}
    assert any(r["authorized"] for r in psim.requests())
    # After the command too, and the top-level -o for every command.
    code, out2, err = run(capsys, "-o", "json", "alerts", "list", "--profile", "prod")
    assert code == 0, err
    assert json.loads(out2) == json.loads(out)


def test_missing_env_variable_is_a_config_error_naming_it(psim, capsys, monkeypatch) -> None:
    assert init_env_profile(capsys, psim)[0] == 0
    monkeypatch.delenv("PROD_KEY", raising=False)
    with pytest.raises(opsapi.ConfigError, match="PROD_KEY, which is not set"):
        opsapi.Client.from_profile("prod")
    code, _, err = run(capsys, "--profile", "prod", "alerts", "list")
    assert code == 2 and "PROD_KEY" in err
    assert not psim.requests()


def test_key_file_must_be_0600(psim, capsys, monkeypatch, tmp_path) -> None:
    key = tmp_path / "prod.key"
    code, _, err = run(
        capsys,
        "config",
        "init",
        "--profile",
        "prod",
        "--base-url",
        psim.base_url,
        "--public-key",
        psim.public_key,
        "--private-key-file",
        str(key),
        "--private-key-stdin",
        stdin=psim.private_key + "\n",
        monkeypatch=monkeypatch,
    )
    assert code == 0, err
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert key.read_text().strip() == psim.private_key
    assert psim.private_key not in config.config_path().read_text()
    assert opsapi.Client.from_profile("prod").groups.list()
    os.chmod(key, 0o644)
    with pytest.raises(opsapi.ConfigError) as e:
        opsapi.Client.from_profile("prod")
    msg = str(e.value)
    assert "0644" in msg and "other users" in msg and f"chmod 600 {key}" in msg
    assert psim.private_key not in msg


def test_keyring_profile(psim, capsys, monkeypatch) -> None:
    keyring = pytest.importorskip("keyring", reason="keyring is not installed")
    from keyring.backend import KeyringBackend

    class Memory(KeyringBackend):
        priority = 1  # type: ignore[assignment]
        store: dict[tuple[str, str], str] = {}

        def get_password(self, service, username):
            return self.store.get((service, username))

        def set_password(self, service, username, password):
            self.store[(service, username)] = password

        def delete_password(self, service, username):
            self.store.pop((service, username), None)

    previous = keyring.get_keyring()
    keyring.set_keyring(Memory())
    try:
        code, _, err = run(
            capsys,
            "config",
            "init",
            "--profile",
            "kr",
            "--base-url",
            psim.base_url,
            "--public-key",
            psim.public_key,
            "--keyring",
            "--private-key-stdin",
            stdin=psim.private_key,
            monkeypatch=monkeypatch,
        )
        assert code == 0, err
        assert Memory.store == {("opsapi", "kr"): psim.private_key}
        assert "private_key_keyring = true" in config.config_path().read_text()
        assert opsapi.Client.from_profile("kr").groups.list()
    finally:
        keyring.set_keyring(previous)


@pytest.mark.parametrize(
    "table, message",
    [
        (
            'base_url = "http://x"\npublic_key = "p"\nprivate_key = "s3cr3t"\n',
            "holds a private_key",
        ),
        ('base_url = "http://x"\npublic_key = "p"\n', "exactly one of"),
        ('base_url = "http://x"\npublic_key = "p"\nprivate_key_env = "K"\ntimout = 3\n', "timout"),
        ('public_key = "p"\nprivate_key_env = "K"\n', "base_url is missing"),
    ],
)
def test_bad_profiles_are_refused_with_a_reason(table, message) -> None:
    config.config_path().write_text("[p]\n" + table)
    with pytest.raises(opsapi.ConfigError, match=message) as e:
        opsapi.Client.from_profile("p")
    assert "s3cr3t" not in str(e.value)


def test_unknown_profile_names_the_ones_there_are(psim, capsys) -> None:
    assert init_env_profile(capsys, psim)[0] == 0
    with pytest.raises(opsapi.ConfigError, match=r"no profile 'staging'.*profiles: prod"):
        opsapi.Client.from_profile("staging")


def test_init_refuses_to_overwrite_and_lists(psim, capsys) -> None:
    assert init_env_profile(capsys, psim)[0] == 0
    code, err = init_env_profile(capsys, psim)
    assert code == 2 and "exists" in err and "--force" in err
    assert init_env_profile(capsys, psim, "dev", "DEV_KEY")[0] == 0
    code, out, err = run(capsys, "config", "list", "--output", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["name"], r["private_key"]) for r in rows] == [
        ("prod", "env PROD_KEY"),
        ("dev", "env DEV_KEY"),
    ]


def test_init_without_answers_says_what_is_missing(capsys) -> None:
    code, _, err = run(capsys, "config", "init", "--profile", "x", "--no-input")
    assert code == 2
    assert "--base-url" in err and "--public-key" in err and "--keyring" in err
    assert not config.config_path().exists()
