"""The exceptions of opsapi. Every raised error derives from :class:`OpsApiError`.

The native module maps its one Rust error type to these classes in one place
(``src/python/errors.rs``). No message or attribute ever holds the private key.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = [
    "OpsApiError",
    "ApiError",
    "AuthenticationError",
    "ForbiddenError",
    "NotFoundError",
    "RateLimitError",
    "ServerError",
    "InvalidArgumentError",
    "TransportError",
    "RequestTimeoutError",
    "ResponseTooLargeError",
    "ShutdownError",
    "DecodeError",
    "PagingError",
    "UnsupportedError",
    "ConfigError",
    "FrameError",
    "OutputError",
    "StoreLockedError",
    "StoreFileError",
]


class OpsApiError(Exception):
    """Base class of every error opsapi raises."""


class ApiError(OpsApiError):
    """The server answered with an error status.

    Attributes: ``status`` (int), ``error_code`` (e.g. ``"HOST_NOT_FOUND"``), ``detail``,
    ``reason``, ``parameters`` (list), ``body`` (the response body as text), ``request``
    (``"GET /groups/..."``) and ``retry_after`` (seconds, from ``Retry-After``).
    """

    def __init__(
        self,
        status: int,
        error_code: Optional[str] = None,
        detail: Optional[str] = None,
        reason: Optional[str] = None,
        parameters: Optional[list[Any]] = None,
        body: str = "",
        *,
        message: Optional[str] = None,
        request: Optional[str] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        if message is None:
            message = f"HTTP {status}"
            if error_code or reason:
                message += f" {error_code or reason}"
            if detail:
                message += f": {detail}"
        super().__init__(message)
        self.status = status
        self.error_code = error_code
        self.detail = detail
        self.reason = reason
        self.parameters: list[Any] = list(parameters or [])
        self.body = body
        self.request = request
        self.retry_after = retry_after


class AuthenticationError(ApiError):
    """401: the server rejected the credentials after the Digest handshake."""


class ForbiddenError(ApiError):
    """403: the key may not do this."""


class NotFoundError(ApiError):
    """404: no such resource (``error_code`` says which, e.g. ``HOST_NOT_FOUND``)."""


class RateLimitError(ApiError):
    """429 once retries are spent; ``retry_after`` is the server's advice in seconds."""


class ServerError(ApiError):
    """5xx once retries are spent."""


class InvalidArgumentError(OpsApiError, ValueError):
    """An argument was rejected before any request was sent; ``argument`` names it."""

    def __init__(self, message: str, argument: Optional[str] = None) -> None:
        super().__init__(message)
        self.argument = argument


class TransportError(OpsApiError):
    """Connect, TLS, reset or timeout: no usable answer came back."""

    def __init__(
        self, message: str, *, method: Optional[str] = None, path: Optional[str] = None
    ) -> None:
        super().__init__(message)
        self.method = method
        self.path = path


class RequestTimeoutError(TransportError, TimeoutError):
    """A request's time budget (the client's ``timeout``, in seconds, in ``timeout``) was spent:
    every attempt, backoff and ``Retry-After`` wait of one API request counts."""

    def __init__(
        self,
        message: str,
        *,
        method: Optional[str] = None,
        path: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> None:
        super().__init__(message, method=method, path=path)
        self.timeout = timeout


class ResponseTooLargeError(TransportError):
    """A response body larger than the client's ``max_response_bytes`` (in ``limit``); it was
    not read past the limit."""

    def __init__(
        self,
        message: str,
        *,
        method: Optional[str] = None,
        path: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> None:
        super().__init__(message, method=method, path=path)
        self.limit = limit


class ShutdownError(TransportError):
    """The call was cut off because opsapi shut down its runtime (the interpreter is exiting),
    or it was made after that."""


class DecodeError(OpsApiError):
    """A body that is not the documented JSON: ``field`` names where, ``body_start`` shows
    the start of the body."""

    def __init__(
        self,
        message: str,
        *,
        path: Optional[str] = None,
        field: Optional[str] = None,
        body_start: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.field = field
        self.body_start = body_start


class PagingError(DecodeError):
    """Pages that do not add up (a repeated page, a wrong ``totalCount``)."""

    def __init__(self, message: str, *, path: Optional[str] = None) -> None:
        super().__init__(message, path=path)


class UnsupportedError(OpsApiError):
    """The server's flavour does not have the operation (Atlas and Cloud Manager have no global
    alerts and no global API access list): raised before any request is sent. ``operation``
    names it as the client calls it (``"global_alerts.list"``), ``flavour`` is the client's
    (``"atlas"``).

    >>> try:
    ...     opsapi.Client.atlas(client_id="id", client_secret="secret").global_alerts.list()
    ... except opsapi.UnsupportedError as e:
    ...     print(e.operation, e.flavour)
    global_alerts.list atlas
    """

    def __init__(
        self, message: str, *, operation: Optional[str] = None, flavour: Optional[str] = None
    ) -> None:
        super().__init__(message)
        self.operation = operation
        self.flavour = flavour


class ConfigError(OpsApiError):
    """The client could not be set up (e.g. the HTTP stack failed to initialize)."""


class FrameError(OpsApiError):
    """Building a DataFrame failed."""


class OutputError(OpsApiError, OSError):
    """Output could not be written (``path`` names the file or folder)."""

    def __init__(self, message: str, *, path: Optional[str] = None) -> None:
        super().__init__(message)
        self.path = path


class StoreLockedError(OpsApiError):
    """Another process is syncing the same measurement store (a sync called with
    ``wait=False``); ``path`` is the store's folder. The lock is an OS file lock: it goes with
    the process that held it, so a sync that was killed never leaves it behind."""

    def __init__(self, message: str, *, path: Optional[str] = None) -> None:
        super().__init__(message)
        self.path = path


class StoreFileError(OpsApiError, OSError):
    """A file of a measurement store is missing, damaged (truncated, of another size or
    checksum than its manifest records, not Parquet) or outside the store's folder; ``path``
    names it. ``store.check()`` lists every such file, and the next sync drops it and asks the
    server again for its span."""

    def __init__(self, message: str, *, path: Optional[str] = None) -> None:
        super().__init__(message)
        self.path = path
