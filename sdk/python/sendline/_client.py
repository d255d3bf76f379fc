"""The Sendline client: one line of setup over the generated API classes, with the retry,
timeout and idempotency policy of every call. Hand-written; kept across regeneration."""
from __future__ import annotations

import os
import random
import time
import uuid
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Mapping, Optional, TypeVar
from urllib.parse import urlsplit

import urllib3

from sendline._deadline import Deadline, enforce_deadlines
from sendline._errors import (
    APIConnectionError,
    APITimeoutError,
    ConflictError,
    SendlineError,
    error_for_response,
)
from sendline._resources import (
    AnalyticsResource,
    ApiKeysResource,
    AuthResource,
    CampaignsResource,
    ContactImportsResource,
    ContactsResource,
    ConversionsResource,
    EventsResource,
    PaymentsResource,
    TrackingResource,
    UsersResource,
    WebhooksResource,
)
from sendline.api.auth_api import AuthApi
from sendline.api_client import ApiClient
from sendline.configuration import Configuration
from sendline.exceptions import ApiException
from sendline.models.login_request import LoginRequest

__all__ = ["Sendline", "normalize_base_url", "USER_AGENT", "VERSION"]

VERSION = "0.1.0"
USER_AGENT = f"sendline-python/{VERSION}"
DEFAULT_BASE_URL = "http://localhost:3000"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
# Backoff: full jitter over 0.5 s doubled on each retry, at most 8 s. A Retry-After above the cap
# is not waited out: the caller gets the RateLimitError at once and decides.
BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0
RETRY_AFTER_CAP = 20.0
RETRY_STATUSES = frozenset({408, 429})

T = TypeVar("T")


def normalize_base_url(base_url: str) -> str:
    """`https://host`, `…/`, `…/api`, `…/api/v1` or `…/v1` (any path before them kept): `…/api/v1`."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SendlineError(f"base_url must be an http:// or https:// URL, not {base_url!r}")
    path = parts.path.rstrip("/")
    for suffix in ("/api/v1", "/api", "/v1"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return f"{parts.scheme}://{parts.netloc}{path}/api/v1"


def _retry_after_seconds(value: Optional[str]) -> Optional[float]:
    """`Retry-After` as seconds: delay-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Sendline:
    """A client of one Sendline server.

    ``Sendline(api_key="sl_…", base_url="https://mail.example.com")``; both default to the
    ``SENDLINE_API_KEY`` and ``SENDLINE_BASE_URL`` environment variables (the base URL then to
    ``http://localhost:3000``). ``timeout`` (seconds) bounds each attempt of a call and
    ``max_retries`` how many times a failed call is tried again; both can be given per call too.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("SENDLINE_API_KEY")
        if not key:
            raise SendlineError("No API key: pass Sendline(api_key=\"sl_…\") or set SENDLINE_API_KEY")
        self._configure(key, base_url, timeout, max_retries)

    def _configure(self, key: Optional[str], base_url: Optional[str], timeout: float, max_retries: int) -> None:
        if timeout <= 0:
            raise SendlineError("timeout must be a positive number of seconds")
        if max_retries < 0:
            raise SendlineError("max_retries must be 0 (no retries) or more")
        self.base_url = normalize_base_url(base_url or os.environ.get("SENDLINE_BASE_URL") or DEFAULT_BASE_URL)
        self.timeout = float(timeout)
        self.max_retries = max_retries

        configuration = Configuration(host=self.base_url, access_token=key)
        # The client owns the retry policy: urllib3 must neither retry nor wait out Retry-After.
        configuration.retries = False
        # RFC 3339 in queries: the client hands the generated code UTC date-times only.
        configuration.datetime_format = "%Y-%m-%dT%H:%M:%S.%fZ"
        self.api_client = ApiClient(configuration)
        """The generated client underneath, for the generated `…Api` classes."""
        self.api_client.user_agent = USER_AGENT
        enforce_deadlines(self.api_client.rest_client.pool_manager)

        self.contacts = ContactsResource(self)
        self.contact_imports = ContactImportsResource(self)
        self.campaigns = CampaignsResource(self)
        self.api_keys = ApiKeysResource(self)
        self.webhooks = WebhooksResource(self)
        self.events = EventsResource(self)
        self.tracking = TrackingResource(self)
        self.analytics = AnalyticsResource(self)
        self.conversions = ConversionsResource(self)
        self.payments = PaymentsResource(self)
        self.users = UsersResource(self)
        self.auth = AuthResource(self)

    @classmethod
    def login(
        cls,
        base_url: Optional[str],
        email: str,
        password: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> "Sendline":
        """Log in with a user's email and password: a client using the session's JWT (15 minutes)."""
        anonymous = cls.__new__(cls)
        anonymous._configure(None, base_url, timeout, max_retries)
        api = AuthApi(anonymous.api_client)
        session = anonymous._request(
            "POST",
            lambda headers, limit: api.login(
                LoginRequest(email=email, password=password), _headers=headers, _request_timeout=limit
            ),
        )
        return cls(session.token, anonymous.base_url, timeout=timeout, max_retries=max_retries)

    def __repr__(self) -> str:
        return f"Sendline(base_url={self.base_url!r})"

    def _request(
        self,
        method: str,
        send: Callable[[Dict[str, str], float], T],
        *,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        rewind: Optional[Callable[[], bool]] = None,
    ) -> T:
        """Runs `send(headers, timeout)` (one HTTP exchange) under the client's policy: an
        `Idempotency-Key` on POSTs, the same on every attempt; retries with backoff; errors mapped
        to `SendlineError`s. `rewind` readies a streamed body for another attempt (False: it cannot)."""
        headers: Dict[str, str] = {}
        if idempotency_key is not None or method.upper() == "POST":
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        limit = self.timeout if timeout is None else float(timeout)
        retries = self.max_retries if max_retries is None else max_retries
        attempt = 0
        while True:
            with Deadline(limit) as deadline:
                try:
                    # A copy each time: the generated code adds its own headers to the dict it gets.
                    return send(dict(headers), limit)
                except ApiException as exception:
                    cause: BaseException = exception
                    error = self._response_error(exception)
                except (urllib3.exceptions.HTTPError, OSError) as exception:
                    if not (isinstance(exception, urllib3.exceptions.HTTPError) or deadline.expired):
                        raise  # not the network's: e.g. a file to upload that cannot be read
                    cause = exception
                    error = self._connection_error(exception, limit)
            if deadline.expired and isinstance(error, APIConnectionError):
                error = APITimeoutError(f"No response within {limit:g} s")
            delay = self._retry_delay(error, attempt, retries)
            if delay is None or (rewind is not None and not rewind()):
                raise error from cause
            attempt += 1
            time.sleep(delay)

    @staticmethod
    def _response_error(exception: ApiException) -> SendlineError:
        if not exception.status:
            # The generated layer's own failures before any answer (TLS, an unsendable body).
            return APIConnectionError(f"No response: {exception.reason}")
        headers: Mapping[str, str] = dict(exception.headers or {})
        lowered = {k.lower(): v for k, v in headers.items()}
        return error_for_response(
            int(exception.status), exception.body, headers, _retry_after_seconds(lowered.get("retry-after"))
        )

    @staticmethod
    def _connection_error(exception: BaseException, limit: float) -> APIConnectionError:
        # NewConnectionError (refused, unresolvable) subclasses urllib3's ConnectTimeoutError.
        if isinstance(exception, urllib3.exceptions.TimeoutError) and not isinstance(
            exception, urllib3.exceptions.NewConnectionError
        ):
            return APITimeoutError(f"No response within {limit:g} s")
        # urllib3 words its errors after the connection object's repr: keep what follows it.
        reason = str(getattr(exception, "reason", None) or exception).split(">: ", 1)[-1]
        return APIConnectionError(f"Connection error: {reason}")

    @staticmethod
    def _retry_delay(error: SendlineError, attempt: int, retries: int) -> Optional[float]:
        """Seconds to wait before the next attempt, or None when the error is final."""
        if attempt >= retries:
            return None
        retryable = (
            isinstance(error, APIConnectionError)
            or error.status in RETRY_STATUSES
            or (error.status is not None and error.status >= 500)
            or (isinstance(error, ConflictError) and error.code == "idempotency_key_in_use")
        )
        if not retryable:
            return None
        retry_after = _retry_after_seconds(error.headers.get("retry-after"))
        if retry_after is not None:
            return retry_after if retry_after <= RETRY_AFTER_CAP else None
        return random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))

    def close(self) -> None:
        self.api_client.rest_client.pool_manager.clear()

    def __enter__(self) -> "Sendline":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
