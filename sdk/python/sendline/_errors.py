"""The errors the Sendline client raises. Hand-written; kept across regeneration."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from sendline.models.field_error import FieldError


class SendlineError(Exception):
    """Base of every error of the client. `status` is None when no response came back."""

    status: Optional[int]
    code: Optional[str]
    problem: Dict[str, Any]
    request_id: Optional[str]
    headers: Dict[str, str]

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        problem: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
        code: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.problem = dict(problem or {})
        found = self.problem.get("code") if code is None else code
        self.code = found if isinstance(found, str) else None
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        self.request_id = self.headers.get("x-request-id")

    def __str__(self) -> str:
        return self.message


class ValidationError(SendlineError):
    """400 or 422: the request does not fit the contract; `errors` names the fields at fault
    (`sendline.FieldError`: `pointer`, a JSON Pointer into the request, and `detail`)."""

    @property
    def errors(self) -> List[FieldError]:
        found = self.problem.get("errors")
        if not isinstance(found, list):
            return []
        return [
            FieldError(pointer=str(e.get("pointer", "")), detail=str(e.get("detail", "")))
            for e in found
            if isinstance(e, dict)
        ]


def local_validation_error(code: str, errors: Sequence[Tuple[str, str]]) -> "ValidationError":
    """A `ValidationError` found before sending (no status): `errors` as (pointer, detail) pairs,
    the pointers in the server's form (`path.id`, `query.limit`, `header.Idempotency-Key`, `/email`)."""
    listed = [{"pointer": pointer, "detail": detail} for pointer, detail in errors]
    message = f"{code}: " + "; ".join(f"{pointer} {detail}" for pointer, detail in errors)
    return ValidationError(message, problem={"code": code, "detail": message, "errors": listed})


class ConfigurationError(SendlineError):
    """The client cannot be set up as given: a missing or malformed API key, a base URL that is
    not http(s), a timeout or retry count out of range. Raised at construction; no status."""


class AuthenticationError(SendlineError):
    """401: no valid API key or session."""


class PermissionDeniedError(SendlineError):
    """403: the key lacks the scope, or is used from an address it does not allow."""


class NotFoundError(SendlineError):
    """404."""


class ConflictError(SendlineError):
    """409: e.g. a contact with that email exists (`existing_id`), or an idempotent request is in flight."""

    @property
    def existing_id(self) -> Optional[str]:
        found = self.problem.get("existing_id")
        return found if isinstance(found, str) else None


class RateLimitError(SendlineError):
    """429: too many requests; `retry_after` is how many seconds the server asks to wait."""

    retry_after: Optional[float]

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        problem: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message, status=status, problem=problem, headers=headers)
        self.retry_after = retry_after


class ServerError(SendlineError):
    """5xx."""


class APIConnectionError(SendlineError):
    """No response: the connection failed or broke (the cause is chained as `__cause__`)."""


class APITimeoutError(APIConnectionError):
    """No response within the timeout."""


class WebhookVerificationError(SendlineError):
    """A webhook delivery is not signed by the endpoint's secret, is malformed, or is too old."""


_BY_STATUS = {
    400: ValidationError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
}


def error_for_response(
    status: int, body: Optional[str], headers: Mapping[str, str], retry_after: Optional[float]
) -> SendlineError:
    """The error of a non-2xx answer, from its RFC 9457 problem document when there is one."""
    problem: Dict[str, Any] = {}
    if body:
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            problem = parsed
    code = problem.get("code")
    detail = problem.get("detail") or problem.get("title") or (body or "")[:200]
    message = f"{status}" + (f" {code}" if code else "") + (f": {detail}" if detail else "")
    request_id = {k.lower(): v for k, v in headers.items()}.get("x-request-id")
    if request_id:
        message += f" (request {request_id})"
    if status == 429:
        return RateLimitError(message, status=status, problem=problem, headers=headers, retry_after=retry_after)
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else SendlineError)
    return cls(message, status=status, problem=problem, headers=headers)
