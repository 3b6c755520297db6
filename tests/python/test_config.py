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


# ---- every file 0600, names that are names, one precedence (issue 31, items 7-9) -------------


def test_a_leftover_temporary_file_never_widens_the_config(psim, capsys, tmp_path) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    # What an earlier, interrupted write (or someone else) left: world-writable files, and a
    # link planted where a temporary file would go.
    for leftover in (path, path.with_name(path.name + ".tmp")):
        leftover.write_text("# left over\n")
        os.chmod(leftover, 0o666)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    os.symlink(victim, path.with_name(f".{path.name}.tmp"))
    path.unlink()
    code, err = init_env_profile(capsys, psim)
    assert code == 0, err
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert victim.read_text() == "mine\n"
    # An existing 0666 config file is replaced by a 0600 one too.
    os.chmod(path, 0o666)
    code, err = init_env_profile(capsys, psim, "dev", "DEV_KEY")
    assert code == 0, err
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # And a key file, written beside a 0666 leftover of its own name.
    key = tmp_path / "k.key"
    key.with_name("k.key.tmp").write_text("x")
    os.chmod(key.with_name("k.key.tmp"), 0o666)
    config.write_private_key_file(key, "secret-1")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".k.key.")]  # no leftover


PASTED = "7f3e1c2a-5b6d-4e8f-9a0b-1c2d3e4f5a6b"


def test_a_key_pasted_where_a_variable_name_belongs_is_refused_unshown(
    psim, capsys, monkeypatch
) -> None:
    code, out, err = run(
        capsys, "config", "init", "--profile", "prod", "--base-url", psim.base_url,
        "--public-key", psim.public_key, "--private-key-env", PASTED, "--no-input",
    )  # fmt: skip
    assert code == cli.EXIT_USAGE
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "private_key_env must be the name of an environment variable" in err
    assert PASTED not in out + err
    assert not config.config_path().exists()
    # One already in a file (written by hand) is refused by every reader, unshown too.
    config.config_path().write_text(
        f'[prod]\nbase_url = "{psim.base_url}"\npublic_key = "p"\nprivate_key_env = "{PASTED}"\n'
    )
    with pytest.raises(opsapi.ConfigError) as e:
        opsapi.Client.from_profile("prod")
    assert PASTED not in str(e.value) and "private_key_env" in str(e.value)
    for argv in (["config", "list"], ["--profile", "prod", "alerts", "list"]):
        code, out, err = run(capsys, *argv)
        assert code == cli.EXIT_USAGE and PASTED not in out + err, argv
    # A name with a dash (a profile `my-prod`) gets a default that is a name.
    assert config.Profile("p", "u", "k", private_key_env="OPSAPI_MY_PROD_PRIVATE_KEY")


@pytest.fixture
def clean_env(monkeypatch):
    for name in (*config.ENVIRONMENT, "OPSAPI_CA_FILE", "OPSAPI_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.parametrize(
    ("named", "profile_env", "environment", "default", "chosen"),
    [
        ("prod", "dev", True, True, "prod"),  # named where the client is built
        (None, "dev", True, True, "dev"),  # then $OPSAPI_PROFILE
        (None, None, True, True, None),  # then the environment (from_env)
        (None, None, False, True, "default"),  # then the profile `default`
        (None, None, False, False, "error"),  # then: opsapi config init
    ],
)
def test_one_precedence(clean_env, named, profile_env, environment, default, chosen) -> None:
    if profile_env:
        clean_env.setenv("OPSAPI_PROFILE", profile_env)
    if environment:
        # An Atlas key without OPSAPI_BASE_URL, as the Atlas guide allows.
        clean_env.setenv("OPSAPI_FLAVOUR", "atlas")
        clean_env.setenv("OPSAPI_PUBLIC_KEY", "pub")
        clean_env.setenv("OPSAPI_PRIVATE_KEY", "secret-of-the-environment")
    if default:
        config.write_profile(config.Profile("default", "http://127.0.0.1:9", "p", "DEF_KEY"))
    if chosen == "error":
        with pytest.raises(opsapi.ConfigError, match="opsapi config init"):
            config.chosen_profile(named)
    else:
        assert config.chosen_profile(named) == chosen


def test_the_environment_before_the_default_profile_everywhere(psim, clean_env, capsys) -> None:
    """OPSAPI_FLAVOUR=atlas and a key in the environment, no OPSAPI_BASE_URL, and a profile
    `default` of an Ops Manager server: the CLI and from_profile() never take the profile."""
    clean_env.setenv("DEF_KEY", psim.private_key)
    config.write_profile(config.Profile("default", psim.base_url, psim.public_key, "DEF_KEY"))
    clean_env.setenv("OPSAPI_FLAVOUR", "atlas")
    clean_env.setenv("OPSAPI_PUBLIC_KEY", "atlas-pub")
    clean_env.setenv("OPSAPI_PRIVATE_KEY", "atlas-secret-0000")
    # from_env builds Atlas's client from it (no request is sent here).
    assert opsapi.Client.from_env().flavour == "atlas"
    with pytest.raises(opsapi.ConfigError, match=r"from_env\(\)") as e:
        opsapi.Client.from_profile()
    assert "OPSAPI_FLAVOUR" in str(e.value) and "atlas-secret-0000" not in str(e.value)
    # The command takes the environment too: its client is from_env's (Atlas, whose
    # https://cloud.mongodb.com this machine cannot reach), never the default profile's.
    with Simulator(seed=1, projects=1, hosts_per_project=1, flavour="atlas", now=FIXED_NOW) as at:
        clean_env.setattr(opsapi.Client, "from_env", classmethod(lambda cls: at.client()))
        psim.clear_requests()
        code, out, err = run(capsys, "projects", "-o", "json")
        assert code == 0, err
        assert [p["id"] for p in json.loads(out)] == list(at.group_ids)
        assert psim.requests() == []
    # Named, the profile is used, whatever the environment holds.
    code, out, err = run(capsys, "--profile", "default", "projects", "-o", "json")
    assert code == 0, err
    assert [p["id"] for p in json.loads(out)] == list(psim.group_ids)


def test_no_credentials_point_to_config_init(clean_env, capsys) -> None:
    code, out, err = run(capsys, "alerts", "list")
    assert code == cli.EXIT_USAGE and out == ""
    assert err.startswith("error: no credentials") and err.count("\n") == 1, err
    assert err.rstrip().endswith("create one with: opsapi config init")


def test_the_environment_names_are_those_from_env_reads() -> None:
    """config.ENVIRONMENT (what makes the environment the source) is the connection that the
    native from_env reads (src/python/api/client.rs), OPSAPI_CA_FILE aside."""
    import re
    from pathlib import Path

    source = (Path(__file__).resolve().parents[2] / "src/python/api/client.rs").read_text()
    body = source.split("fn from_env(", 1)[1].split("\n}\n", 1)[0]
    read = set(re.findall(r'"(OPSAPI_[A-Z_]+)"', body)) - {"OPSAPI_CA_FILE"}
    assert read == set(config.ENVIRONMENT)
