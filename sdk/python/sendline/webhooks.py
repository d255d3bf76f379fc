"""Verifying Sendline webhooks (Standard Webhooks signatures, as Svix's libraries do).
Hand-written; kept across regeneration.

    from sendline.webhooks import Webhook

    event = Webhook(secret).verify(request.get_data(), request.headers)  # Flask
    event = Webhook(secret).verify(request.body, request.headers)        # Django
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from datetime import datetime
from typing import Any, Dict, Iterable, Mapping, Optional, Protocol, Sequence, Union, cast

from pydantic import BaseModel, ConfigDict

from sendline._errors import WebhookVerificationError
from sendline.models.event import Event

__all__ = ["Webhook", "WebhookEvent", "UnknownEvent", "WebhookVerificationError"]

DEFAULT_TOLERANCE_SECONDS = 300
HeaderValue = Union[str, bytes, Sequence[Union[str, bytes]]]
_SIGNATURE_HEADERS = frozenset({"webhook-id", "webhook-timestamp", "webhook-signature"})


class WebhookEvent(Protocol):
    """What every event has: the typed event models (`ContactCreatedEvent`, …) and `UnknownEvent`."""

    @property
    def id(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def created_at(self) -> datetime: ...

    @property
    def account_id(self) -> str: ...

    @property
    def data(self) -> Any: ...


class UnknownEvent(BaseModel):
    """An event of a type this version of the SDK does not know (a newer server's): the envelope
    with its `data` as a dict, so that a receiver keeps working when event types are added."""

    model_config = ConfigDict(extra="allow")

    id: str
    type: str
    created_at: datetime
    account_id: str
    data: Dict[str, Any]


def _text(value: Union[str, bytes]) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


def _header_map(headers: Union[Mapping[str, HeaderValue], Iterable[Any]]) -> Dict[str, str]:
    """Header names in any case (and WSGI/Django `HTTP_WEBHOOK_ID` keys), values as strings or
    lists of strings (joined with spaces, as repeated signature headers mean)."""
    items: Iterable[Any] = headers.items() if isinstance(headers, Mapping) or hasattr(headers, "items") else headers
    found: Dict[str, str] = {}
    for name, value in items:
        key = _text(name).lower().replace("_", "-")
        if key.startswith("http-"):
            key = key[len("http-") :]
        if key not in _SIGNATURE_HEADERS:
            continue  # e.g. the rest of a WSGI environ, whose values are not all strings
        if isinstance(value, (list, tuple)):
            text = " ".join(_text(v) for v in value)
        else:
            text = _text(value)
        found[key] = f"{found[key]} {text}" if key in found else text
    return found


class Webhook:
    """The endpoint's signing secret (`whsec_…`, the prefix optional) and the check of its deliveries."""

    def __init__(self, secret: Union[str, bytes], *, tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS) -> None:
        text = _text(secret)
        if text.startswith("whsec_"):
            text = text[len("whsec_") :]
        try:
            self._key = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as error:
            raise WebhookVerificationError("webhook secret is not a whsec_ base64 secret") from error
        if not self._key:
            raise WebhookVerificationError("webhook secret is not a whsec_ base64 secret")
        self._tolerance = tolerance_seconds

    def __repr__(self) -> str:
        return "Webhook(secret=…)"

    def sign(self, msg_id: str, timestamp: Union[int, float, datetime], payload: Union[bytes, str]) -> str:
        """The `webhook-signature` header value of a delivery (for tests of receivers)."""
        seconds = int(timestamp.timestamp() if isinstance(timestamp, datetime) else timestamp)
        return "v1," + base64.b64encode(self._digest(msg_id, str(seconds), payload)).decode("ascii")

    def verify(self, payload: Union[bytes, str], headers: Union[Mapping[str, HeaderValue], Iterable[Any]]) -> WebhookEvent:
        """Checks `webhook-id`, `webhook-timestamp` (within 5 minutes of now, either way) and
        `webhook-signature`, and answers the event: the typed model when its type is known (e.g.
        `ContactCreatedEvent`), else an `UnknownEvent`. Pass the raw body exactly as received,
        as bytes or str. Anything amiss raises `WebhookVerificationError`."""
        found = _header_map(headers)
        msg_id, timestamp, signatures = found.get("webhook-id"), found.get("webhook-timestamp"), found.get("webhook-signature")
        if not msg_id or not timestamp or not signatures:
            raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
        timestamp = timestamp.strip()
        if not timestamp.isdigit():
            raise WebhookVerificationError("webhook timestamp is not a number")
        if abs(time.time() - int(timestamp)) > self._tolerance:
            raise WebhookVerificationError(f"webhook timestamp is more than {self._tolerance} s from now")
        expected = self._digest(msg_id, timestamp, payload)
        if not any(self._matches(entry, expected) for entry in signatures.split()):
            raise WebhookVerificationError("no webhook signature matches")
        return self._event(payload)

    def _digest(self, msg_id: str, timestamp: str, payload: Union[bytes, str]) -> bytes:
        body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
        return hmac.new(self._key, f"{msg_id}.{timestamp}.".encode("utf-8") + body, hashlib.sha256).digest()

    @staticmethod
    def _matches(entry: str, expected: bytes) -> bool:
        version, _, signature = entry.partition(",")
        if version != "v1":
            return False
        try:
            given = base64.b64decode(signature, validate=True)
        except (binascii.Error, ValueError):
            return False
        return hmac.compare_digest(given, expected)

    @staticmethod
    def _event(payload: Union[bytes, str]) -> WebhookEvent:
        try:
            parsed = json.loads(payload)
        except (ValueError, UnicodeDecodeError) as error:
            raise WebhookVerificationError("webhook body is not a JSON event") from error
        if not isinstance(parsed, dict):
            raise WebhookVerificationError("webhook body is not a JSON event")
        try:
            typed: Optional[Any] = Event.from_dict(parsed).actual_instance
        except ValueError:
            typed = None  # a type this SDK does not know, or a shape it does not expect
        if typed is not None:
            return cast(WebhookEvent, typed)
        try:
            return UnknownEvent.model_validate(parsed)
        except ValueError as error:
            raise WebhookVerificationError("webhook body is not a JSON event") from error
