"""Verifying Sendline webhooks (Standard Webhooks signatures). Hand-written; kept across regeneration."""
import base64
import hashlib
import hmac
import time
from typing import Mapping

from sendline.models.event import Event


class WebhookVerificationError(Exception):
    """The delivery is not signed by the endpoint's secret, or is too old."""


def verify_webhook(secret: str, headers: Mapping[str, str], body: str, tolerance_seconds: int = 300) -> Event:
    """Check `webhook-id`, `webhook-timestamp` and `webhook-signature` against the endpoint's
    `whsec_…` secret and answer the typed event (`event.actual_instance` is e.g. a
    `ContactCreatedEvent`). Pass the raw body exactly as received."""
    lowered = {k.lower(): v for k, v in headers.items()}
    message_id, timestamp, signatures = lowered.get("webhook-id"), lowered.get("webhook-timestamp"), lowered.get("webhook-signature")
    if not message_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook headers")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError("timestamp outside the tolerance")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = hmac.new(key, f"{message_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(base64.b64decode(signature), expected):
            return Event.from_json(body)
    raise WebhookVerificationError("no signature matches")
