"""Profiles: named connection settings in a TOML file, as mongocli and atlas-cli users know them.

The file is ``$OPSAPI_CONFIG`` if set, else ``config.toml`` in the platform's config
directory: ``$XDG_CONFIG_HOME/opsapi`` (default ``~/.config/opsapi``) on Linux and other
Unixes, ``~/Library/Application Support/opsapi`` on macOS, ``%APPDATA%\\opsapi`` on Windows
(``XDG_CONFIG_HOME``, when set, wins everywhere). One table per profile::

    [prod]
    base_url = "https://om.example.com:8443"
    public_key = "abcdefgh"
    private_key_env = "OPSAPI_PROD_PRIVATE_KEY"   # or one of:
    # private_key_file = "/home/me/.config/opsapi/prod.key"   (mode 0600, else refused)
    # private_key_keyring = true                              (service "opsapi", user "prod")
    ca_file = "/etc/ssl/om-ca.pem"                 # optional, as are timeout, max_retries,
                                                   # max_concurrency, verify, user_agent,
                                                   # max_response_bytes, rate_limit, flavour

    [atlas]                                        # an Atlas service account
    flavour = "atlas"                              # base_url: https://cloud.mongodb.com
    client_id = "mdb_sa_id_..."
    client_secret_env = "ATLAS_CLIENT_SECRET"      # or client_secret_file, client_secret_keyring

``flavour`` (``"ops-manager"``, ``"cloud-manager"``, ``"atlas"``) is the base URL's unless
given; an Atlas profile needs no ``base_url`` and takes an API key (``public_key`` and a
private key source) or a service account (``client_id`` and a client secret source).

The private key (or client secret) itself is never written into (nor read from) the TOML
file, and a ``*_env`` setting must be an environment variable's name (a pasted key is refused,
without being shown). Every file written here (the config file, a key file) ends with mode
0600, whatever was there before.

Which credentials a client is built from, the same for :meth:`opsapi.Client.from_profile`,
:meth:`opsapi.Client.from_env` and the ``opsapi`` command (:func:`chosen_profile`):

1. A source named where the client is built: ``from_profile("prod")``, ``opsapi --profile
   prod``; ``from_env()`` names the environment.
2. Else the profile ``$OPSAPI_PROFILE`` names.
3. Else the environment, when it sets any of :data:`ENVIRONMENT`: all of the connection comes
   from it, and what it lacks is an error naming the variable (``OPSAPI_FLAVOUR=atlas`` with a
   key needs no ``OPSAPI_BASE_URL``). ``from_profile()`` without a name refuses here, rather
   than take the profile ``default`` where ``opsapi`` would take the environment.
4. Else the profile ``default``; else a ``ConfigError`` that says to run ``opsapi config init``.

A source is used whole: the environment never completes nor changes a profile, nor a profile
the environment (``OPSAPI_CA_FILE`` is the environment's own server's).

Example::

    $ opsapi config init --profile prod --base-url https://om.example.com:8443 \\
          --public-key abcdefgh --private-key-env OPSAPI_PROD_PRIVATE_KEY
    >>> client = opsapi.Client.from_profile("prod")  # doctest: +SKIP
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from ._config_files import dumps
from ._config_files import write_private as _write_private
from .exceptions import ConfigError

__all__ = [
    "CONFIG_ENV",
    "ENVIRONMENT",
    "KEYRING_SERVICE",
    "PROFILE_ENV",
    "Profile",
    "atlas_arguments",
    "chosen_profile",
    "client_arguments",
    "config_path",
    "load_profile",
    "load_profiles",
    "store_in_keyring",
    "write_private_key_file",
    "write_profile",
]

#: Environment variable that names the config file (tests, several configurations).
CONFIG_ENV = "OPSAPI_CONFIG"
#: Environment variable that names the profile when none is given.
PROFILE_ENV = "OPSAPI_PROFILE"
#: The system keyring's service name for private keys; the user name is the profile's name.
KEYRING_SERVICE = "opsapi"
DEFAULT_PROFILE = "default"
#: The variables of a connection that ``Client.from_env`` reads: any of them set makes the
#: environment the source (``OPSAPI_CA_FILE`` only completes the environment's connection).
ENVIRONMENT = ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY", "OPSAPI_CLIENT_ID",
               "OPSAPI_CLIENT_SECRET", "OPSAPI_FLAVOUR")  # fmt: skip
# What a `*_env` setting may hold: a variable's name; anything else is likely a pasted key.
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Settings a profile may hold, with their types; anything else is refused as a likely typo.
_CONNECTION = {"base_url": str, "public_key": str, "client_id": str, "flavour": str}
_KEY_SOURCES = {"private_key_env": str, "private_key_file": str, "private_key_keyring": bool}
# A service account's secret comes from the same kinds of source, under these names.
_SECRET_SOURCES = {
    "client_secret_env": "private_key_env",
    "client_secret_file": "private_key_file",
    "client_secret_keyring": "private_key_keyring",
}
_FLAVOURS = ("ops-manager", "cloud-manager", "atlas")
_OPTIONS: dict[str, Union[type, tuple[type, ...]]] = {
    "ca_file": str,
    "verify": bool,
    "timeout": (int, float),
    "max_retries": int,
    "max_concurrency": int,
    "user_agent": str,
    "max_response_bytes": int,
    "rate_limit": (int, float, dict),
}
_KNOWN = {
    **_CONNECTION,
    **_KEY_SOURCES,
    **{k: _KEY_SOURCES[v] for k, v in _SECRET_SOURCES.items()},
    **_OPTIONS,
}


def config_path() -> Path:
    """The config file: ``$OPSAPI_CONFIG``, else ``config.toml`` in the platform's config dir.

    >>> import os; os.environ["OPSAPI_CONFIG"] = "/tmp/opsapi.toml"
    >>> str(config_path())
    '/tmp/opsapi.toml'
    >>> del os.environ["OPSAPI_CONFIG"]
    """
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        base = Path(xdg).expanduser()
    elif sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path.home() / ".config"
    return base / "opsapi" / "config.toml"


def _toml_loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # a dependency on 3.9 and 3.10 only (pyproject's marker)
        import tomli as tomllib
    return tomllib.loads(text)


@dataclass(frozen=True)
class Profile:
    """One profile of the config file. Holds where the private key is, never the key.

    A service account (Atlas) has a ``client_id`` instead of a ``public_key``; the
    ``private_key_*`` fields then say where its client secret is (``client_secret_*`` in the
    file).

    >>> p = Profile("prod", "https://om:8443", "pub", private_key_env="PROD_KEY")
    >>> p.key_source
    'env PROD_KEY'
    >>> Profile("atlas", None, client_id="mdb_sa_id_1", private_key_env="SECRET").to_table()
    {'flavour': 'atlas', 'client_id': 'mdb_sa_id_1', 'client_secret_env': 'SECRET'}
    """

    name: str
    base_url: Optional[str]
    public_key: Optional[str] = None
    private_key_env: Optional[str] = None
    private_key_file: Optional[str] = None
    private_key_keyring: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    path: Optional[Path] = None
    client_id: Optional[str] = None
    flavour: Optional[str] = None

    def __post_init__(self) -> None:
        if self.private_key_env is not None and not _ENV_NAME.fullmatch(self.private_key_env):
            where = f"profile {self.name!r}" + (f" of {self.path}" if self.path else "")
            setting = "client_secret_env" if self.client_id else "private_key_env"
            # Never the value itself: where a name belongs, people paste the key.
            raise ConfigError(
                f"{where}: {setting} must be the name of an environment variable (letters, "
                "digits and _, not starting with a digit); the value given is not one, and is "
                "not shown in case it is the key itself"
            )

    @property
    def secret_name(self) -> str:
        """What the secret is: ``"private key"`` or (a service account's) ``"client secret"``."""
        return "client secret" if self.client_id else "private key"

    @property
    def key_source(self) -> str:
        """Where the private key comes from: ``env NAME``, ``file PATH`` or ``keyring``."""
        if self.private_key_env:
            return f"env {self.private_key_env}"
        if self.private_key_file:
            return f"file {self.private_key_file}"
        return "keyring"

    def to_table(self) -> dict[str, Any]:
        """The profile's TOML table (what ``write_profile`` writes).

        >>> Profile("prod", "https://om:8443", "pub", private_key_env="PROD_KEY").to_table()
        {'base_url': 'https://om:8443', 'public_key': 'pub', 'private_key_env': 'PROD_KEY'}
        """
        out: dict[str, Any] = {}
        flavour = self.flavour or ("atlas" if self.client_id else None)
        if flavour:
            out["flavour"] = flavour
        if self.base_url:
            out["base_url"] = self.base_url
        if self.client_id:
            out["client_id"] = self.client_id
        else:
            out["public_key"] = self.public_key
        prefix = "client_secret" if self.client_id else "private_key"
        if self.private_key_env:
            out[f"{prefix}_env"] = self.private_key_env
        elif self.private_key_file:
            out[f"{prefix}_file"] = self.private_key_file
        else:
            out[f"{prefix}_keyring"] = True
        out.update(self.options)
        return out

    def private_key(self) -> str:
        """The private key, from the environment, a 0600 file or the system keyring.

        Raises ``ConfigError`` saying what is missing or why a file is refused.

        >>> key = load_profile("prod").private_key()  # doctest: +SKIP
        """
        where = f"profile {self.name!r}" + (f" of {self.path}" if self.path else "")
        what = self.secret_name
        if self.private_key_env:
            value = os.environ.get(self.private_key_env)
            if not value:
                raise ConfigError(
                    f"{where} takes its {what} from the environment variable "
                    f"{self.private_key_env}, which is not set"
                )
            return value
        if self.private_key_file:
            return _read_key_file(Path(self.private_key_file).expanduser(), where, what)
        return _keyring_key(self.name, where, what)


def _read_key_file(path: Path, where: str, what: str = "private key") -> str:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ConfigError(f"{where}: {what} file {path} does not exist") from None
    except OSError as e:
        raise ConfigError(f"{where}: {what} file {path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{where}: {what} file {path} is not a regular file")
    # As ssh does with identity files: a key that other users can read is no longer private.
    if os.name == "posix" and st.st_mode & 0o077:
        raise ConfigError(
            f"{where}: {what} file {path} has permissions "
            f"{stat.S_IMODE(st.st_mode):04o}, so other users can read or change it; "
            f"opsapi reads a key file only with 0600 (run: chmod 600 {path})"
        )
    try:
        key = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{where}: {what} file {path} cannot be read: {e}") from None
    if not key:
        raise ConfigError(f"{where}: {what} file {path} is empty")
    return key


def _keyring() -> Any:
    try:
        import keyring
    except ImportError:
        raise ConfigError(
            "the private key is in the system keyring, but the keyring package is not "
            "installed (pip install keyring)"
        ) from None
    return keyring


def _keyring_key(name: str, where: str, what: str = "private key") -> str:
    keyring = _keyring()
    try:
        key = keyring.get_password(KEYRING_SERVICE, name)
    except Exception as e:  # keyring.errors.KeyringError and backends' own
        raise ConfigError(f"{where}: the system keyring failed: {type(e).__name__}: {e}") from None
    if not key:
        raise ConfigError(
            f"{where}: no {what} in the system keyring (service {KEYRING_SERVICE!r}, "
            f"user {name!r}); store one with: opsapi config init --profile {name} --keyring"
        )
    return key


def store_in_keyring(profile: str, private_key: str) -> None:
    """Stores ``private_key`` in the system keyring for ``profile``.

    >>> store_in_keyring("prod", "7f3e...")  # doctest: +SKIP
    """
    keyring = _keyring()
    try:
        keyring.set_password(KEYRING_SERVICE, profile, private_key)
    except Exception as e:
        raise ConfigError(f"the system keyring failed: {type(e).__name__}: {e}") from None


def write_private_key_file(
    path: Union[str, Path], private_key: str, *, force: bool = False
) -> Path:
    """Writes ``private_key`` to ``path`` with mode 0600 (created so, never widened first).

    >>> write_private_key_file("~/.config/opsapi/prod.key", "7f3e...")  # doctest: +SKIP
    PosixPath('/home/me/.config/opsapi/prod.key')
    """
    path = Path(path).expanduser()
    if path.exists() and not force:
        raise ConfigError(f"{path} exists; pass --force to replace it")
    _write_private(path, private_key.strip() + "\n")
    return path


def load_profiles(path: Union[str, Path, None] = None) -> dict[str, Profile]:
    """Every profile of the config file, by name; ``{}`` when the file does not exist.

    >>> sorted(load_profiles())  # doctest: +SKIP
    ['default', 'prod']
    """
    file = Path(path).expanduser() if path is not None else config_path()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"config file {file} cannot be read: {e}") from None
    try:
        doc = _toml_loads(text)
    except ValueError as e:  # tomllib.TOMLDecodeError
        raise ConfigError(f"config file {file} is not valid TOML: {e}") from None
    return {name: _profile(name, table, file) for name, table in doc.items()}


def _profile(name: str, table: Any, file: Path) -> Profile:
    where = f"profile {name!r} of {file}"
    if not isinstance(table, dict):
        raise ConfigError(f"{file}: {name!r} is not a table; each profile is a [name] table")
    for secret in ("private_key", "client_secret"):
        if secret in table:
            raise ConfigError(
                f"{where} holds a {secret}: opsapi never reads a key from the config file; "
                f"use {secret}_env, {secret}_file (mode 0600) or {secret}_keyring"
            )
    for key, value in table.items():
        expected = _KNOWN.get(key)
        if expected is None:
            raise ConfigError(f"{where}: unknown setting {key!r} (known: {', '.join(_KNOWN)})")
        wrong = isinstance(value, bool) and expected is not bool
        if wrong or not isinstance(value, expected):
            kind = expected.__name__ if isinstance(expected, type) else "number"
            raise ConfigError(f"{where}: {key} must be a {kind}, not {value!r}")
    flavour = table.get("flavour")
    if flavour is not None and flavour not in _FLAVOURS:
        raise ConfigError(
            f"{where}: flavour must be one of {', '.join(_FLAVOURS)}, not {flavour!r}"
        )
    account = "client_id" in table
    if account and flavour not in (None, "atlas"):
        raise ConfigError(f"{where}: a service account (client_id) is Atlas's, not {flavour}'s")
    atlas = account or flavour == "atlas"
    needed = ["client_id"] if account else ["public_key"]
    if not atlas:
        needed.insert(0, "base_url")
    for key in needed:
        if not table.get(key):
            raise ConfigError(f"{where}: {key} is missing")
    if account and "public_key" in table:
        raise ConfigError(f"{where}: give public_key or client_id, not both")
    names = list(_SECRET_SOURCES) if account else list(_KEY_SOURCES)
    others = [k for k in (_KEY_SOURCES if account else _SECRET_SOURCES) if k in table]
    if others:
        raise ConfigError(f"{where}: {others[0]} does not go with {needed[-1]}")
    sources = [k for k in names if table.get(k)]
    if len(sources) != 1:
        raise ConfigError(
            f"{where}: give exactly one of {names[0]}, {names[1]}, {names[2]} = true "
            f"(found {', '.join(sources) or 'none'})"
        )
    source = _SECRET_SOURCES.get(sources[0], sources[0])
    return Profile(
        name=name,
        base_url=table.get("base_url"),
        public_key=table.get("public_key"),
        private_key_env=table[sources[0]] if source == "private_key_env" else None,
        private_key_file=table[sources[0]] if source == "private_key_file" else None,
        private_key_keyring=source == "private_key_keyring",
        options={k: v for k, v in table.items() if k in _OPTIONS},
        path=file,
        client_id=table.get("client_id"),
        flavour=flavour,
    )


def profile_name(name: Optional[str] = None) -> str:
    """``name``, else ``$OPSAPI_PROFILE``, else ``"default"``."""
    return name or os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE


def environment_names() -> list[str]:
    """The variables of :data:`ENVIRONMENT` set (and not blank, as ``from_env`` reads them).

    >>> environment_names()  # doctest: +SKIP
    ['OPSAPI_PUBLIC_KEY', 'OPSAPI_PRIVATE_KEY', 'OPSAPI_FLAVOUR']
    """
    return [n for n in ENVIRONMENT if os.environ.get(n, "").strip()]


def chosen_profile(name: Optional[str] = None) -> Optional[str]:
    """The profile a client is built from by the precedence above, or None for the
    environment (``Client.from_env()``): ``name``, else ``$OPSAPI_PROFILE``, else None when the
    environment sets any of :data:`ENVIRONMENT`, else ``"default"`` when the config file has
    it. With none of these, a ``ConfigError`` that says how to configure one.

    >>> chosen_profile("prod")
    'prod'
    >>> name = chosen_profile()  # doctest: +SKIP
    >>> if name:  # doctest: +SKIP
    ...     client = opsapi.Client.from_profile(name)
    ... else:
    ...     client = opsapi.Client.from_env()
    """
    named = name or os.environ.get(PROFILE_ENV, "").strip()
    if named:
        return named
    if environment_names():
        return None
    file = config_path()
    profiles = load_profiles(file)
    if DEFAULT_PROFILE in profiles:
        return DEFAULT_PROFILE
    have = ""
    if profiles:
        have = f" (profiles: {', '.join(sorted(profiles))}; name one with --profile)"
    raise ConfigError(
        f"no credentials: no profile named, no OPSAPI_* connection in the environment, and no "
        f"profile {DEFAULT_PROFILE!r} in {file}{have}; create one with: opsapi config init"
    )


def load_profile(name: Optional[str] = None, path: Union[str, Path, None] = None) -> Profile:
    """One profile; ``ConfigError`` naming the file and the profiles it has when missing.

    >>> load_profile("prod").base_url  # doctest: +SKIP
    'https://om.example.com:8443'
    """
    name = profile_name(name)
    file = Path(path).expanduser() if path is not None else config_path()
    profiles = load_profiles(file)
    if name not in profiles:
        have = ", ".join(sorted(profiles)) or "none"
        raise ConfigError(
            f"no profile {name!r} in {file} (profiles: {have}); "
            f"create it with: opsapi config init --profile {name}"
        )
    return profiles[name]


def client_arguments(
    name: Optional[str] = None, path: Union[str, Path, None] = None, **overrides: Any
) -> tuple[tuple[str, str, str], dict[str, Any]]:
    """``(base_url, public_key, private_key), options`` for ``Client(*args, **options)`` (the
    options hold ``flavour`` when the profile names one). A profile of Atlas is built with
    :func:`atlas_arguments` instead.

    >>> args, options = client_arguments("prod", timeout=10)  # doctest: +SKIP
    >>> client = opsapi.Client(*args, **options)  # doctest: +SKIP
    """
    p = load_profile(name, path)
    options = {**p.options, **{k: v for k, v in overrides.items() if v is not None}}
    if _is_atlas(p):
        raise ConfigError(
            f"profile {p.name!r} is an Atlas profile: build it with opsapi.Client.from_profile "
            "(or Client.atlas(**atlas_arguments(name)))"
        )
    if p.flavour:
        options["flavour"] = p.flavour
    return (p.base_url or "", p.public_key or "", p.private_key()), options


def _is_atlas(p: Profile) -> bool:
    return bool(p.client_id) or p.flavour == "atlas"


def atlas_arguments(
    name: Optional[str] = None, path: Union[str, Path, None] = None, **overrides: Any
) -> dict[str, Any]:
    """The keyword arguments of ``Client.atlas`` for an Atlas profile: ``client_id`` and
    ``client_secret`` (or ``public_key`` and ``private_key``), ``base_url`` when the profile
    has one, and its options.

    >>> client = opsapi.Client.atlas(**atlas_arguments("atlas"))  # doctest: +SKIP
    """
    p = load_profile(name, path)
    if not _is_atlas(p):
        raise ConfigError(f"profile {p.name!r} is not an Atlas profile")
    out = {**p.options, **{k: v for k, v in overrides.items() if v is not None}}
    if p.client_id:
        out.update(client_id=p.client_id, client_secret=p.private_key())
    else:
        out.update(public_key=p.public_key, private_key=p.private_key())
    if p.base_url:
        out["base_url"] = p.base_url
    return out


def write_profile(
    profile: Profile, path: Union[str, Path, None] = None, *, force: bool = False
) -> Path:
    """Adds ``profile`` to the config file (or replaces it with ``force``); returns the file.

    The other profiles are kept; comments in the file are not (the file is rewritten).

    >>> p = Profile("prod", "https://om:8443", "pub", private_key_env="PROD_KEY")
    >>> write_profile(p)  # doctest: +SKIP
    PosixPath('/home/me/.config/opsapi/config.toml')
    """
    file = Path(path).expanduser() if path is not None else config_path()
    existing = load_profiles(file)
    if profile.name in existing and not force:
        raise ConfigError(f"profile {profile.name!r} exists in {file}; pass --force to replace it")
    tables = {name: p.to_table() for name, p in existing.items()}
    tables[profile.name] = profile.to_table()
    # No secret inside, but whoever can change the file can point a profile at a server of
    # theirs and collect the key: 0600, whatever the file or a leftover had before.
    _write_private(file, dumps(tables))
    return file


def from_profile(
    cls: Any,
    name: Optional[str] = None,
    *,
    path: Union[str, os.PathLike[str], None] = None,
    timeout: Optional[float] = None,
    max_retries: Optional[int] = None,
    max_concurrency: Optional[int] = None,
    verify: Optional[bool] = None,
    ca_file: Union[str, os.PathLike[str], None] = None,
    user_agent: Optional[str] = None,
    max_response_bytes: Optional[int] = None,
    rate_limit: Union[float, dict[str, float], None] = None,
) -> Any:
    """A client from a profile written by ``opsapi config init``: of Ops Manager, Cloud
    Manager or (``Client.atlas``) Atlas, as the profile says.

    ``name`` defaults to ``$OPSAPI_PROFILE``, then ``"default"`` unless the environment sets
    a connection (then a ``ConfigError``: see the precedence in :mod:`opsapi.config`);
    ``path`` (the config file) to :func:`opsapi.config.config_path`. Keyword arguments
    override the profile's settings.
    A missing profile, setting or private key is a ``ConfigError`` that says which.

    >>> client = opsapi.Client.from_profile("prod")  # doctest: +SKIP
    >>> client = opsapi.AsyncClient.from_profile("prod", timeout=60)  # doctest: +SKIP
    """
    overrides = dict(
        timeout=timeout,
        max_retries=max_retries,
        max_concurrency=max_concurrency,
        verify=verify,
        ca_file=None if ca_file is None else os.fspath(ca_file),
        user_agent=user_agent,
        max_response_bytes=max_response_bytes,
        rate_limit=rate_limit,
    )
    if name is None and path is None:
        name = chosen_profile()
        if name is None:
            raise ConfigError(
                f"no profile named, and the environment sets {', '.join(environment_names())}: "
                f"the environment comes before the profile {DEFAULT_PROFILE!r} (as for the "
                "opsapi command); use Client.from_env(), or name the profile: "
                f"Client.from_profile({DEFAULT_PROFILE!r})"
            )
    if _is_atlas(load_profile(name, path)):
        return cls.atlas(**atlas_arguments(name, path, **overrides))
    args, kwargs = client_arguments(name, path, **overrides)
    return cls(*args, **kwargs)
