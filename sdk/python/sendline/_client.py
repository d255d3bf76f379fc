"""The Sendline client: one line of setup over the generated API classes, with the retry,
timeout and idempotency policy of every call. Hand-written; kept across regeneration."""
from __future__ import annotations

import json
import os
import random
import re
import threading
import time
import uuid
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Mapping, Optional, TypeVar
from urllib.parse import urlsplit

import pydantic
import urllib3

from sendline._deadline import Deadline, enforce_deadlines
from sendline._errors import (
    APIConnectionError,
    APITimeoutError,
    ConfigurationError,
    ConflictError,
    SendlineError,
    error_for_response,
    local_validation_error,
)
from sendline._resources import (
    AnalyticsResource,
    ApiKeysResource,
    AuthResource,
    CampaignsResource,
    ContactImportsResource,
    ContactsResource,
    ConversionsResource,
    CustomFieldsResource,
    EmailsResource,
    EventsResource,
    PaymentsResource,
    SegmentsResource,
    TagsResource,
    TemplatesResource,
    TrackingResource,
    UsersResource,
    WebhooksResource,
)
from sendline._resources import ContactListsResource, ListsResource, PublicListsResource
from sendline._resources import ContactExportsResource, ContactTopicsResource, SuppressionsResource, TopicsResource
from sendline._resources import AccountsResource, DomainsResource
from sendline._resources import AutomationsResource, ContactAutomationsResource, ContactEventsResource
from sendline.api.auth_api import AuthApi
from sendline.api_client import ApiClient
from sendline.configuration import Configuration
from sendline.exceptions import ApiException
from sendline.models.login_request import LoginRequest

__all__ = ["Sendline", "SendlineApiClient", "check_idempotency_key", "normalize_base_url", "USER_AGENT", "VERSION"]

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
# Header values: a key is visible ASCII; an Idempotency-Key is the server's rule (1–255 printable
# ASCII, no space at either end). Nothing a caller gives can add a header line.
_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")
_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?")

T = TypeVar("T")


def normalize_base_url(base_url: str) -> str:
    """`https://host`, `…/`, `…/api`, `…/api/v1` or `…/v1` (any path before them kept): `…/api/v1`."""
    given = base_url.strip()
    try:
        parts = urlsplit(given)
    except ValueError as error:
        raise ConfigurationError(f"base_url must be an http:// or https:// URL, not {base_url!r}") from error
    if parts.scheme not in ("http", "https") or not parts.netloc or not _VISIBLE_ASCII.fullmatch(given):
        raise ConfigurationError(f"base_url must be an http:// or https:// URL, not {base_url!r}")
    path = parts.path.rstrip("/")
    for suffix in ("/api/v1", "/api", "/v1"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return f"{parts.scheme}://{parts.netloc}{path}/api/v1"


def _shown_url(url: str) -> str:
    """A request's URL as an error may show it: no user info, no query string (it may hold secrets)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"


def _checked_key(key: Optional[str]) -> str:
    """The API key without surrounding whitespace (a key read from a file ends with a newline);
    `ConfigurationError` when missing or not visible ASCII. The message never shows the key."""
    if key is not None and not isinstance(key, str):
        raise ConfigurationError(f"The API key must be a str, not {type(key).__name__}")
    stripped = key.strip() if key is not None else ""
    if not stripped:
        raise ConfigurationError("No API key: pass Sendline(api_key=\"sl_…\") or set SENDLINE_API_KEY")
    if not _VISIBLE_ASCII.fullmatch(stripped):
        raise ConfigurationError(
            "The API key contains a character that is not visible ASCII (a space, a line break or a "
            "non-ASCII letter): check how it was copied"
        )
    return stripped


def check_idempotency_key(key: str) -> None:
    """The server's rule for an `Idempotency-Key`, checked before anything is sent."""
    if not isinstance(key, str) or not _IDEMPOTENCY_KEY.fullmatch(key):
        raise local_validation_error(
            "invalid_idempotency_key",
            [("header.Idempotency-Key", "must be 1 to 255 printable ASCII characters, without a space at either end")],
        )


class SendlineApiClient(ApiClient):
    """The generated `ApiClient`, which also remembers the URL of each thread's last request
    (for connection errors) and refuses a 2xx answer that is not the JSON expected."""

    def __init__(self, configuration: Configuration) -> None:
        super().__init__(configuration)
        self._last = threading.local()

    @property
    def last_url(self) -> Optional[str]:
        found: Optional[str] = getattr(self._last, "url", None)
        return found

    def remember_url(self, url: Optional[str]) -> None:
        self._last.url = url

    def call_api(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        self.remember_url(url)
        return super().call_api(method, url, *args, **kwargs)

    def response_deserialize(self, response_data: Any, response_types_map: Any = None) -> Any:
        status = response_data.status
        if not isinstance(status, int) or not 200 <= status <= 299:
            return super().response_deserialize(response_data, response_types_map)
        try:
            answer = super().response_deserialize(response_data, response_types_map)
        except Exception as error:  # the generated layer's ValueError, pydantic's, ApiException…
            raise self._invalid(response_data) from error
        expected = (response_types_map or {}).get(str(status))
        if expected not in (None, "str", "bytearray", "object", "file") and answer.data is None:
            raise self._invalid(response_data)
        return answer

    @staticmethod
    def _invalid(response_data: Any) -> SendlineError:
        status = int(response_data.status)
        try:
            json.loads(response_data.data or b"")
            what = "the JSON expected"
        except ValueError:
            what = "JSON"
        content_type = response_data.getheader("content-type") or "none"
        headers = {str(k): str(v) for k, v in (response_data.getheaders() or {}).items()}
        return SendlineError(
            f"{status}: the answer is not {what} (Content-Type: {content_type})",
            status=status,
            code="invalid_response",
            headers=headers,
        )


def _network_reason(exception: BaseException) -> str:
    """What failed, from the innermost error (`Connection refused`, `Name or service not known`,
    `Remote end closed connection without response`): urllib3's own wording starts with the
    connection object (`<…HTTPConnection object at 0x…>`, or `…HTTPConnection(host=…, port=…)`
    since urllib3 2.6), which tells a reader nothing."""
    innermost, seen = exception, {id(exception)}
    while True:
        reason = getattr(innermost, "reason", None)
        inner = reason if isinstance(reason, BaseException) else innermost.__cause__ or innermost.__context__
        if inner is None or id(inner) in seen:
            break
        innermost = inner
        seen.add(id(inner))
    if isinstance(innermost, OSError) and innermost.strerror:
        return str(innermost.strerror)
    return str(innermost) or type(innermost).__name__


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
        key = _checked_key(api_key if api_key is not None else os.environ.get("SENDLINE_API_KEY"))
        self._configure(key, base_url, timeout, max_retries)

    def _configure(self, key: Optional[str], base_url: Optional[str], timeout: float, max_retries: int) -> None:
        if timeout <= 0:
            raise ConfigurationError("timeout must be a positive number of seconds")
        if max_retries < 0:
            raise ConfigurationError("max_retries must be 0 (no retries) or more")
        self.base_url = normalize_base_url(base_url or os.environ.get("SENDLINE_BASE_URL") or DEFAULT_BASE_URL)
        self.timeout = float(timeout)
        self.max_retries = max_retries

        configuration = Configuration(host=self.base_url, access_token=key)
        # The client owns the retry policy: urllib3 must neither retry nor wait out Retry-After.
        configuration.retries = False
        # RFC 3339 in queries: the client hands the generated code UTC date-times only.
        configuration.datetime_format = "%Y-%m-%dT%H:%M:%S.%fZ"
        self.api_client = SendlineApiClient(configuration)
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
        self.custom_fields = CustomFieldsResource(self)
        self.segments = SegmentsResource(self)
        self.tags = TagsResource(self)
        self.templates = TemplatesResource(self)
        self.lists = ListsResource(self)
        self.contact_lists = ContactListsResource(self)
        self.public_lists = PublicListsResource(self)
        self.emails = EmailsResource(self)
        self.suppressions = SuppressionsResource(self)
        self.topics = TopicsResource(self)
        self.contact_topics = ContactTopicsResource(self)
        self.contact_exports = ContactExportsResource(self)
        self.accounts = AccountsResource(self)
        self.domains = DomainsResource(self)
        self.automations = AutomationsResource(self)
        self.contact_automations = ContactAutomationsResource(self)
        self.contact_events = ContactEventsResource(self)

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
        try:
            credentials = LoginRequest(email=email, password=password)
        except pydantic.ValidationError as error:
            found = [("/" + "/".join(map(str, e["loc"])), str(e["msg"])) for e in error.errors()]
            raise local_validation_error("validation_failed", found) from None
        session = anonymous._request(
            "POST",
            lambda headers, limit: api.login(credentials, _headers=headers, _request_timeout=limit),
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
        if idempotency_key is not None:
            check_idempotency_key(idempotency_key)
            headers["Idempotency-Key"] = idempotency_key
        elif method.upper() == "POST":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        if max_retries is not None and (not isinstance(max_retries, int) or max_retries < 0):
            raise ConfigurationError("max_retries must be 0 (no retries) or more")
        limit = self.timeout if timeout is None else float(timeout)
        retries = self.max_retries if max_retries is None else max_retries
        attempt = 0
        while True:
            self.api_client.remember_url(None)
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
                    error = self._connection_error(exception, limit, self.api_client.last_url)
            if deadline.expired and isinstance(error, APIConnectionError):
                error = APITimeoutError(self._timeout_message(limit, self.api_client.last_url))
            delay = self._retry_delay(error, attempt, retries)
            if delay is None or (rewind is not None and not rewind()):
                raise error from cause
            attempt += 1
            time.sleep(delay)

    def _response_error(self, exception: ApiException) -> SendlineError:
        if not exception.status:
            # The generated layer's own failures before any answer (TLS, an unsendable body).
            url = self.api_client.last_url
            reason = _network_reason(exception.__context__) if exception.__context__ else exception.reason
            return APIConnectionError(f"Could not reach {_shown_url(url)}: {reason}" if url else f"No response: {reason}")
        headers: Mapping[str, str] = dict(exception.headers or {})
        lowered = {k.lower(): v for k, v in headers.items()}
        return error_for_response(
            int(exception.status), exception.body, headers, _retry_after_seconds(lowered.get("retry-after"))
        )

    @staticmethod
    def _timeout_message(limit: float, url: Optional[str]) -> str:
        return f"No response from {_shown_url(url)} within {limit:g} s" if url else f"No response within {limit:g} s"

    @classmethod
    def _connection_error(cls, exception: BaseException, limit: float, url: Optional[str] = None) -> APIConnectionError:
        # NewConnectionError (refused, unresolvable) subclasses urllib3's ConnectTimeoutError.
        if isinstance(exception, urllib3.exceptions.TimeoutError) and not isinstance(
            exception, urllib3.exceptions.NewConnectionError
        ):
            return APITimeoutError(cls._timeout_message(limit, url))
        reason = _network_reason(exception)
        return APIConnectionError(f"Could not reach {_shown_url(url)}: {reason}" if url else f"Connection error: {reason}")

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
