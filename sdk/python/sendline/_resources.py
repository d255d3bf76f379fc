"""The client's resource namespaces (`client.contacts`, `client.campaigns`, …): one method per
operation of the contract, named after its id (`Contacts_create` is `contacts.create`), path
parameters positional, everything else keyword arguments; body fields are the fields of the
operation's generated request model. Hand-written; kept across regeneration."""
from __future__ import annotations

import inspect
import time
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Protocol, Sequence, Tuple, TypeVar

import pydantic
from dateutil.parser import isoparse
from pydantic import BaseModel
from typing_extensions import Unpack

from sendline._errors import APITimeoutError, ValidationError, local_validation_error
from sendline._imports import CsvSource, send_csv
from sendline._pagination import Paginator
from sendline._params import (
    ApiKeyCreateParams,
    ApiKeyUpdateParams,
    BounceParams,
    CampaignParams,
    ContactBulkParams,
    ContactCreateParams,
    ContactImportParams,
    ContactUpdateParams,
    ConversionParams,
    CustomFieldCreateParams,
    CustomFieldUpdateParams,
    DateTime,
    MailboxParams,
    EmailParams,
    PaymentParams,
    RegisterParams,
    SegmentCreateParams,
    SegmentUpdateParams,
    TagBulkParams,
    TemplateCreateParams,
    TemplateUpdateParams,
    UserCreateParams,
    UserUpdateParams,
    WebhookParams,
)
from sendline._params import ListCreateParams, ListUpdateParams, PublicSubscribeParams
from sendline.api.analytics_api import AnalyticsApi
from sendline.api.api_keys_api import ApiKeysApi
from sendline.api.auth_api import AuthApi
from sendline.api.campaigns_api import CampaignsApi
from sendline.api.contact_imports_api import ContactImportsApi
from sendline.api.contacts_api import ContactsApi
from sendline.api.emails_api import EmailsApi
from sendline.api.conversions_api import ConversionsApi
from sendline.api.events_api import EventsApi
from sendline.api.payments_api import PaymentsApi
from sendline.api.tracking_api import TrackingApi
from sendline.api.templates_api import TemplatesApi
from sendline.api.users_api import UsersApi
from sendline.api.webhooks_api import WebhooksApi
from sendline.api.domains_api import DomainsApi
from sendline.api.automations_api import AutomationsApi
from sendline.api.contact_automations_api import ContactAutomationsApi
from sendline.api.contact_events_api import ContactEventsApi
from sendline.api.custom_fields_api import CustomFieldsApi
from sendline.api.segments_api import SegmentsApi
from sendline.api.tags_api import TagsApi
from sendline.api.contact_lists_api import ContactListsApi
from sendline.api.lists_api import ListsApi
from sendline.api.public_lists_api import PublicListsApi
from sendline.models.contact_list_membership import ContactListMembership
from sendline.models.list_form import ListForm
from sendline.models.automation import Automation
from sendline.models.automation_analytics import AutomationAnalytics
from sendline.models.automation_create import AutomationCreate
from sendline.models.automation_update import AutomationUpdate
from sendline.models.automation_webhook_secret import AutomationWebhookSecret
from sendline.models.contact_event import ContactEvent
from sendline.models.contact_event_create import ContactEventCreate
from sendline.models.enrollment import Enrollment
from sendline.models.enrollment_create import EnrollmentCreate
from sendline.models.enrollment_result import EnrollmentResult
from sendline.models.list_member import ListMember
from sendline.models.list_members_add import ListMembersAdd
from sendline.models.list_members_add_result import ListMembersAddResult
from sendline.models.list_members_remove import ListMembersRemove
from sendline.models.list_members_remove_result import ListMembersRemoveResult
from sendline.models.mailing_list import MailingList
from sendline.models.mailing_list_create import MailingListCreate
from sendline.models.mailing_list_update import MailingListUpdate
from sendline.models.public_subscribe_request import PublicSubscribeRequest
from sendline.models.public_subscribe_result import PublicSubscribeResult
from sendline.models.analytics_overview import AnalyticsOverview
from sendline.models.api_key import ApiKey
from sendline.models.api_key_create import ApiKeyCreate
from sendline.models.api_key_update import ApiKeyUpdate
from sendline.models.api_key_with_secret import ApiKeyWithSecret
from sendline.models.bounce_record import BounceRecord
from sendline.models.bounce_report import BounceReport
from sendline.models.campaign import Campaign
from sendline.models.template import Template
from sendline.models.template_create import TemplateCreate
from sendline.models.template_render_request import TemplateRenderRequest
from sendline.models.template_rendered import TemplateRendered
from sendline.models.template_test_request import TemplateTestRequest
from sendline.models.template_update import TemplateUpdate
from sendline.models.template_version import TemplateVersion
from sendline.models.email import Email
from sendline.models.email_batch_request import EmailBatchRequest
from sendline.models.email_batch_result import EmailBatchResult
from sendline.models.email_mailbox import EmailMailbox
from sendline.models.email_named_address import EmailNamedAddress
from sendline.models.email_send_request import EmailSendRequest
from sendline.models.email_send_result import EmailSendResult
from sendline.models.campaign_analytics import CampaignAnalytics
from sendline.models.campaign_create import CampaignCreate
from sendline.models.campaign_audience_count import CampaignAudienceCount
from sendline.models.campaign_message import CampaignMessage
from sendline.models.campaign_replace import CampaignReplace
from sendline.models.campaign_schedule_request import CampaignScheduleRequest
from sendline.models.campaign_winner_request import CampaignWinnerRequest
from sendline.models.campaign_send_request import CampaignSendRequest
from sendline.models.campaign_test_request import CampaignTestRequest
from sendline.models.campaign_test_result import CampaignTestResult
from sendline.models.click_record import ClickRecord
from sendline.models.contact import Contact
from sendline.models.contact_bulk_request import ContactBulkRequest
from sendline.models.contact_bulk_result import ContactBulkResult
from sendline.models.contact_count import ContactCount
from sendline.models.contact_activity import ContactActivity
from sendline.models.contact_create import ContactCreate
from sendline.models.contact_import import ContactImport
from sendline.models.contact_import_request import ContactImportRequest
from sendline.models.contact_replace import ContactReplace
from sendline.models.contact_update import ContactUpdate
from sendline.models.conversion import Conversion
from sendline.models.conversion_create import ConversionCreate
from sendline.models.event_page import EventPage
from sendline.models.events_types200_response import EventsTypes200Response
from sendline.models.login_request import LoginRequest
from sendline.models.me import Me
from sendline.models.open_record import OpenRecord
from sendline.models.payment import Payment
from sendline.models.payment_create import PaymentCreate
from sendline.models.refresh_request import RefreshRequest
from sendline.models.register_request import RegisterRequest
from sendline.models.session import Session
from sendline.models.user import User
from sendline.models.user_create import UserCreate
from sendline.models.user_update import UserUpdate
from sendline.models.webhook import Webhook
from sendline.models.domain import Domain
from sendline.models.domain_create import DomainCreate
from sendline.models.webhook_create import WebhookCreate
from sendline.models.webhook_delivery import WebhookDelivery
from sendline.models.webhook_recover_request import WebhookRecoverRequest
from sendline.models.webhook_recover_result import WebhookRecoverResult
from sendline.models.webhook_replace import WebhookReplace
from sendline.models.webhook_test_result import WebhookTestResult
from sendline.models.webhook_with_secret import WebhookWithSecret
from sendline.models.contact_field import ContactField
from sendline.models.contact_field_create import ContactFieldCreate
from sendline.models.contact_field_list import ContactFieldList
from sendline.models.contact_field_update import ContactFieldUpdate
from sendline.models.segment import Segment
from sendline.models.segment_create import SegmentCreate
from sendline.models.segment_preview import SegmentPreview
from sendline.models.segment_preview_request import SegmentPreviewRequest
from sendline.models.segment_update import SegmentUpdate
from sendline.models.tag_bulk_request import TagBulkRequest
from sendline.models.tag_bulk_result import TagBulkResult
from sendline.models.tag_count import TagCount
from sendline.models.tag_rename import TagRename
from sendline.api.contact_exports_api import ContactExportsApi
from sendline.api.contact_topics_api import ContactTopicsApi
from sendline.api.suppressions_api import SuppressionsApi
from sendline.api.topics_api import TopicsApi
from sendline.models.contact_data_export import ContactDataExport
from sendline.models.contact_erasure import ContactErasure
from sendline.models.contact_export import ContactExport
from sendline.models.contact_export_filters import ContactExportFilters
from sendline.models.contact_topic_optouts import ContactTopicOptouts
from sendline.models.contact_topic_optouts_update import ContactTopicOptoutsUpdate
from sendline.models.suppression import Suppression
from sendline.models.suppression_add_result import SuppressionAddResult
from sendline.models.suppression_create_request import SuppressionCreateRequest
from sendline.models.suppression_csv_import_request import SuppressionCsvImportRequest
from sendline.models.suppression_import_result import SuppressionImportResult
from sendline.models.topic import Topic
from sendline.models.topic_create import TopicCreate
from sendline.models.topic_update import TopicUpdate
from sendline.api.accounts_api import AccountsApi
from sendline.models.account import Account
from sendline.models.account_update import AccountUpdate
from sendline.models.password_change import PasswordChange


if TYPE_CHECKING:
    from sendline._client import Sendline

T = TypeVar("T")

M = TypeVar("M", bound=BaseModel)

# The contract's date-time query parameters.
DATE_TIME_QUERY = frozenset({"created_after", "created_before", "since", "until"})


def _utc(value: Any) -> Any:
    """A date-time argument as an aware UTC datetime (naive ones are UTC); anything else as given."""
    if isinstance(value, str):
        try:
            value = isoparse(value)
        except ValueError:
            return value
    if isinstance(value, datetime):
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)  # that day at 00:00:00Z
    return value


def _native(value: Any) -> Any:
    """Body fields with every native datetime made UTC, so that it goes out with an offset."""
    if isinstance(value, date):
        return _utc(value)
    if isinstance(value, dict):
        return {k: _native(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_native(v) for v in value]
    return value


def _body(model: type[M], fields: Mapping[str, Any]) -> M:
    """The request model of the fields given; a name it does not have is a TypeError, as a
    misspelt keyword argument is in Python (the model would otherwise drop it silently)."""
    known = set(model.model_fields) | {f.alias for f in model.model_fields.values() if f.alias}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise TypeError(f"{model.__name__} has no field {', '.join(map(repr, unknown))}; it has {', '.join(sorted(model.model_fields))}")
    return _validated(model, _native(fields))


def _field_errors(error: pydantic.ValidationError, pointer: Callable[[Tuple[Any, ...]], str]) -> ValidationError:
    """pydantic's complaint about the caller's arguments as a `sendline.ValidationError`."""
    found: List[Tuple[str, str]] = [(pointer(tuple(e["loc"])), str(e["msg"])) for e in error.errors()]
    return local_validation_error("validation_failed", found or [("", str(error))])


def _body_pointer(loc: Tuple[Any, ...]) -> str:
    return "/" + "/".join(str(part) for part in loc)


def _validated(model: type[M], fields: Mapping[str, Any]) -> M:
    """The request model of the fields; a value it refuses is a `ValidationError` (`/email`, `/tags`)."""
    try:
        return model.model_validate(fields)
    except pydantic.ValidationError as error:
        raise _field_errors(error, _body_pointer) from None


# What `wait` waits for: the statuses the contract gives as final; the same defaults everywhere.
IMPORT_FINAL = frozenset({"completed", "failed"})
EXPORT_FINAL = frozenset({"completed", "failed"})
CAMPAIGN_FINAL = frozenset({"completed", "cancelled", "failed"})
WAIT_TIMEOUT = 600.0
WAIT_INTERVAL = 1.0


class _HasStatus(Protocol):
    status: Any


S = TypeVar("S", bound=_HasStatus)


def _wait(kind: str, id: str, get: Callable[[], S], final: FrozenSet[str], timeout: float, interval: float) -> S:
    """Calls `get` every `interval` seconds until its status is one of `final`."""
    deadline = time.monotonic() + timeout
    while True:
        found = get()
        status = str(getattr(found.status, "value", found.status))
        if status in final:
            return found
        if time.monotonic() + interval > deadline:
            raise APITimeoutError(f"{kind} {id} is still {status} after {timeout:g} s")
        time.sleep(interval)


def _positional_names(operation: Callable[..., Any]) -> Sequence[str]:
    try:
        return [p.name for p in inspect.signature(operation).parameters.values()]
    except (TypeError, ValueError):
        return []


class _Resource:
    def __init__(self, client: "Sendline") -> None:
        self._client = client

    def _call(
        self,
        method: str,
        operation: Callable[..., T],
        *args: Any,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        **kwargs: Any,
    ) -> T:
        # The operation's positional arguments are its path parameters (then its body): an empty
        # id would otherwise call another URL (`/contacts/` is the list).
        names = _positional_names(operation)[: len(args)]
        path = {name for name in names if name == "id" or name.endswith("_id")}
        for name, value in zip(names, args):
            if name in path and (value is None or (isinstance(value, str) and not value.strip())):
                raise local_validation_error("validation_failed", [(f"path.{name}", "must be a non-empty id")])
        try:
            return self._client._request(
                method,
                lambda headers, limit: operation(*args, **kwargs, _headers=headers, _request_timeout=limit),
                idempotency_key=idempotency_key,
                timeout=timeout,
                max_retries=max_retries,
            )
        except pydantic.ValidationError as error:
            # The generated method's own check of its arguments (`limit` above 500, an unknown `status`).
            def pointer(loc: Tuple[Any, ...]) -> str:
                index = loc[0] - (1 if inspect.ismethod(operation) else 0) if loc and isinstance(loc[0], int) else -1
                if 0 <= index < len(names):
                    loc = (names[index], *loc[1:])  # a positional argument, named by its index (after `self`)
                where = "path" if loc and loc[0] in names else "query"
                return f"{where}." + ".".join(str(part) for part in loc)

            raise _field_errors(error, pointer) from None

    def _list(
        self,
        operation: Callable[..., Any],
        *args: Any,
        timeout: Optional[float],
        cursor: Optional[str],
        max_retries: Optional[int] = None,
        **query: Any,
    ) -> Paginator[Any]:
        given = {k: _utc(v) if k in DATE_TIME_QUERY else v for k, v in query.items() if v is not None}
        return Paginator(
            lambda page: self._call("GET", operation, *args, timeout=timeout, max_retries=max_retries, cursor=page, **given), cursor
        )


class ContactsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ContactsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ContactCreateParams]) -> Contact:
        """`email` and optionally `first_name`, `last_name`, `attributes`, `tags`, `status`, `status_reason`."""
        return self._call("POST", self._api.create, _body(ContactCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Contact:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ContactUpdateParams]) -> Contact:
        """Changes the fields given (PATCH)."""
        return self._call("PATCH", self._api.update, id, _body(ContactUpdate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def replace(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ContactCreateParams]) -> Contact:
        return self._call("PUT", self._api.replace, id, _body(ContactReplace, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(
        self,
        *,
        status: Optional[str] = None,
        tag: Optional[str] = None,
        email: Optional[str] = None,
        q: Optional[str] = None,
        created_after: Optional[DateTime] = None,
        created_before: Optional[DateTime] = None,
        sort: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        timeout: Optional[float] = None, max_retries: Optional[int] = None,
    ) -> Paginator[Contact]:
        """Every contact matching the filters, fetched `limit` (default 50) at a time, in `sort` order
        (`created_at`, the default, `-created_at`, `email` or `-email`)."""
        return self._list(
            self._api.list,
            timeout=timeout, max_retries=max_retries,
            cursor=cursor,
            sort=sort,
            status=status,
            tag=tag,
            email=email,
            q=q,
            created_after=created_after,
            created_before=created_before,
            limit=limit,
        )

    def count(
        self,
        *,
        status: Optional[str] = None,
        tag: Optional[str] = None,
        email: Optional[str] = None,
        q: Optional[str] = None,
        created_after: Optional[DateTime] = None,
        created_before: Optional[DateTime] = None,
        timeout: Optional[float] = None, max_retries: Optional[int] = None,
    ) -> ContactCount:
        """How many contacts the filters of `list` match: `count`, and `exact` (false: the planner's estimate)."""
        query: Dict[str, Any] = {k: v for k, v in {"status": status, "tag": tag, "email": email, "q": q}.items() if v is not None}
        query.update({k: _utc(v) for k, v in {"created_after": created_after, "created_before": created_before}.items() if v is not None})
        return self._call("GET", self._api.count, timeout=timeout, max_retries=max_retries, **query)

    def bulk(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ContactBulkParams]) -> ContactBulkResult:
        """One `action` (`tag`, `untag`, `add_to_list`, `remove_from_list`, `delete`) on up to 10,000 `contact_ids` or on every contact a `filter` matches."""
        return self._call("POST", self._api.bulk, _body(ContactBulkRequest, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def activity(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[ContactActivity]:
        return self._list(self._api.activity, id, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def import_csv(
        self,
        source: CsvSource,
        *,
        mode: Optional[str] = None,
        tags: Optional[List[str]] = None,
        mapping: Optional[Dict[str, str]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None, max_retries: Optional[int] = None,
    ) -> ContactImport:
        """Imports a CSV file, streamed as a multipart upload; answers the queued import (see
        `client.contact_imports.wait`). `source` is a path (`pathlib.Path`, or a `str` without a
        line break), CSV text (a `str` with one), `bytes`, or a file opened for reading.
        `mode`: `upsert` (default), `create_only` or `update_only`; `tags` are added to every
        contact; `mapping` renames columns (`{"E-mail": "email"}`)."""
        return send_csv(
            self._client, source, mode=mode, tags=tags, mapping=mapping, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries
        )

    def export(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ContactDataExport:
        """Everything stored about one contact (GDPR access)."""
        return self._call("GET", self._api.export, id, timeout=timeout, max_retries=max_retries)

    def erase(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ContactErasure:
        """Erases the person's personal data everywhere (GDPR erasure); the address stays suppressed as a hash."""
        return self._call("POST", self._api.erase, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class ContactImportsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ContactImportsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ContactImportParams]) -> ContactImport:
        """A JSON import: `contacts` (at most 10,000 rows), `mode`, `tags`. For CSV, `client.contacts.import_csv`."""
        return self._call("POST", self._api.create, _body(ContactImportRequest, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ContactImport:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[ContactImport]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def errors(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> str:
        """The failed rows as CSV text."""
        return self._call("GET", self._api.errors, id, timeout=timeout, max_retries=max_retries)

    def wait(self, id: str, *, timeout: float = WAIT_TIMEOUT, interval: float = WAIT_INTERVAL, max_retries: Optional[int] = None) -> ContactImport:
        """Polls the import every `interval` seconds until it is `completed` or `failed` and
        answers it; `APITimeoutError` naming it and its last status after `timeout` seconds."""
        return _wait("import", id, lambda: self.get(id, max_retries=max_retries), IMPORT_FINAL, timeout, interval)


class CampaignsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = CampaignsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[CampaignParams]) -> Campaign:
        """`name`, `subject`, `from_email`, `content` (or `template_id` instead of `subject` and
        `content`, with `template_version` and `template_data`), and optionally `from_name`,
        `reply_to`, `text_content`, `preheader`, `content_source`, `audience`, `track_opens`,
        `track_clicks`."""
        return self._call("POST", self._api.create, _body(CampaignCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Campaign:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[CampaignParams]) -> Campaign:
        """Replaces a draft (PUT): the fields of `create`."""
        return self._call("PUT", self._api.update, id, _body(CampaignReplace, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, status: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[Campaign]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, status=status, limit=limit)

    def audience(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> CampaignAudienceCount:
        """How many contacts the campaign would send to if it started now (`recipients`)."""
        return self._call("GET", self._api.audience, id, timeout=timeout, max_retries=max_retries)

    def messages(
        self, id: str, *, status: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Paginator[CampaignMessage]:
        return self._list(self._api.messages, id, timeout=timeout, max_retries=max_retries, cursor=cursor, status=status, limit=limit)

    def send(self, id: str, *, scheduled_at: Optional[DateTime] = None, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Campaign:
        """Sends now, or at `scheduled_at`."""
        body = _validated(CampaignSendRequest, {"scheduled_at": _utc(scheduled_at)}) if scheduled_at is not None else None
        return self._call("POST", self._api.send, id, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def schedule(
        self,
        id: str,
        *,
        scheduled_at: Optional[DateTime] = None,
        local_time: Optional[str] = None,
        by_contact_timezone: Optional[bool] = None,
        late_policy: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Campaign:
        """Starts at `scheduled_at`, or at the wall-clock `local_time` (`YYYY-MM-DDTHH:MM`) in the account's zone or, with `by_contact_timezone`, in each contact's."""
        given = {"scheduled_at": _utc(scheduled_at) if scheduled_at is not None else None, "local_time": local_time, "by_contact_timezone": by_contact_timezone, "late_policy": late_policy}
        body = _validated(CampaignScheduleRequest, {name: value for name, value in given.items() if value is not None})
        return self._call("POST", self._api.schedule, id, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def unschedule(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Campaign:
        return self._call("POST", self._api.unschedule, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def pause(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Campaign:
        return self._call("POST", self._api.pause, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def resume(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Campaign:
        return self._call("POST", self._api.resume, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def cancel(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Campaign:
        return self._call("POST", self._api.cancel, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def winner(self, id: str, *, variant: str, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Campaign:
        """Chooses the A/B test's winning `variant` (by name): the rest of the audience gets it."""
        body = _validated(CampaignWinnerRequest, {"variant": variant})
        return self._call("POST", self._api.winner, id, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def duplicate(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Campaign:
        return self._call("POST", self._api.duplicate, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def wait(self, id: str, *, timeout: float = WAIT_TIMEOUT, interval: float = WAIT_INTERVAL, max_retries: Optional[int] = None) -> Campaign:
        """Polls the campaign every `interval` seconds until it is `completed`, `cancelled` or
        `failed` and answers it; `APITimeoutError` naming it and its last status after `timeout`
        seconds (a draft, scheduled or paused campaign stays as it is until someone acts)."""
        return _wait("campaign", id, lambda: self.get(id, max_retries=max_retries), CAMPAIGN_FINAL, timeout, interval)

    def test(self, id: str, *, emails: List[str], idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> CampaignTestResult:
        """Sends a test of the campaign to `emails`."""
        body = _validated(CampaignTestRequest, {"emails": emails})
        return self._call("POST", self._api.test, id, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class ApiKeysResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ApiKeysApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ApiKeyCreateParams]) -> ApiKeyWithSecret:
        """`name`, `scopes`, and optionally `allowed_ips`, `rate_limit_per_minute`, `expires_at`."""
        return self._call("POST", self._api.create, _body(ApiKeyCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ApiKey:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ApiKeyUpdateParams]) -> ApiKey:
        return self._call("PATCH", self._api.update, id, _body(ApiKeyUpdate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[ApiKey]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)


class WebhooksResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = WebhooksApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[WebhookParams]) -> WebhookWithSecret:
        """`url`, `events`, and optionally `description`, `active`. The answer holds the signing `secret`."""
        return self._call("POST", self._api.create, _body(WebhookCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Webhook:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[WebhookParams]) -> Webhook:
        return self._call("PUT", self._api.update, id, _body(WebhookReplace, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[Webhook]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def deliveries(
        self, id: str, *, status: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Paginator[WebhookDelivery]:
        return self._list(self._api.deliveries, id, timeout=timeout, max_retries=max_retries, cursor=cursor, status=status, limit=limit)

    def test(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> WebhookTestResult:
        return self._call("POST", self._api.test, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def rotate_secret(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> WebhookWithSecret:
        return self._call("POST", self._api.rotate_secret, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def recover(self, id: str, *, since: DateTime, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> WebhookRecoverResult:
        body = _validated(WebhookRecoverRequest, {"since": _utc(since)})
        return self._call("POST", self._api.recover, id, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def retry_delivery(self, id: str, delivery_id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> WebhookDelivery:
        return self._call("POST", self._api.retry_delivery, id, delivery_id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class EventsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = EventsApi(client.api_client)

    def list(
        self, *, type: Optional[str] = None, since: Optional[DateTime] = None, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Paginator[Any]:
        """Every event of the account, as the typed event models."""
        query = {k: v for k, v in {"type": type, "since": _utc(since), "limit": limit}.items() if v is not None}
        return Paginator(lambda page: _Unwrapped(self._call("GET", self._api.list, timeout=timeout, max_retries=max_retries, cursor=page, **query)), cursor)

    def types(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> EventsTypes200Response:
        return self._call("GET", self._api.types, timeout=timeout, max_retries=max_retries)


class _Unwrapped:
    """An event page with each event out of its one-of wrapper."""

    def __init__(self, page: EventPage) -> None:
        self.data = [getattr(e, "actual_instance", e) for e in page.data]
        self.next_cursor = page.next_cursor
        self.has_more = page.has_more


class TrackingResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = TrackingApi(client.api_client)

    def opens(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **filters: Any) -> Paginator[OpenRecord]:
        """Filters: `campaign_id`, `contact_id`, `email`, `since`, `until`."""
        return self._list(self._api.opens, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit, **filters)

    def clicks(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **filters: Any) -> Paginator[ClickRecord]:
        """Filters: `campaign_id`, `contact_id`, `email`, `since`, `until`, `url`."""
        return self._list(self._api.clicks, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit, **filters)

    def bounces(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **filters: Any) -> Paginator[BounceRecord]:
        """Filters: `campaign_id`, `contact_id`, `email`, `since`, `until`, `type`."""
        return self._list(self._api.bounces, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit, **filters)

    def record_bounce(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[BounceParams]) -> BounceRecord:
        """`email` or `message_id`, `type`, and optionally `reason`, `diagnostic_code`, `occurred_at`."""
        return self._call("POST", self._api.record_bounce, _body(BounceReport, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class AnalyticsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = AnalyticsApi(client.api_client)

    def overview(self, *, since: Optional[DateTime] = None, until: Optional[DateTime] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> AnalyticsOverview:
        query = {k: _utc(v) for k, v in {"since": since, "until": until}.items() if v is not None}
        return self._call("GET", self._api.overview, timeout=timeout, max_retries=max_retries, **query)

    def campaign(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> CampaignAnalytics:
        return self._call("GET", self._api.campaign, id, timeout=timeout, max_retries=max_retries)

    def automation(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> AutomationAnalytics:
        """Enrolments by status, and per step how many entered, wait there and went on."""
        return self._call("GET", self._api.automation, id, timeout=timeout, max_retries=max_retries)


class ConversionsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ConversionsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ConversionParams]) -> Conversion:
        return self._call("POST", self._api.create, _body(ConversionCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **filters: Any) -> Paginator[Conversion]:
        """Filters: `contact_id`, `campaign_id`, `since`, `until`, `type`."""
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit, **filters)


class PaymentsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = PaymentsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[PaymentParams]) -> Payment:
        return self._call("POST", self._api.create, _body(PaymentCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **filters: Any) -> Paginator[Payment]:
        """Filters: `contact_id`, `campaign_id`, `since`, `until`."""
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit, **filters)


class UsersResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = UsersApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[UserCreateParams]) -> User:
        return self._call("POST", self._api.create, _body(UserCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> User:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[UserUpdateParams]) -> User:
        return self._call("PATCH", self._api.update, id, _body(UserUpdate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[User]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)


class AuthResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = AuthApi(client.api_client)

    def me(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Me:
        return self._call("GET", self._api.me, timeout=timeout, max_retries=max_retries)

    def login(self, *, email: str, password: str, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Session:
        """A session for the user (see also `Sendline.login`)."""
        return self._call("POST", self._api.login, _validated(LoginRequest, {"email": email, "password": password}), timeout=timeout, max_retries=max_retries)

    def register(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[RegisterParams]) -> Session:
        """`email`, `password`, and optionally `name`, `account_name` (when the server allows sign-up)."""
        return self._call("POST", self._api.register, _body(RegisterRequest, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def refresh(self, *, refresh_token: str, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Session:
        return self._call("POST", self._api.refresh, _validated(RefreshRequest, {"refresh_token": refresh_token}), timeout=timeout, max_retries=max_retries)

    def logout(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("POST", self._api.logout, timeout=timeout, max_retries=max_retries)

    def change_password(
        self, *, current_password: str, new_password: str, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> None:
        """The logged-in user's own password; every other session of the user ends."""
        body = _validated(PasswordChange, {"current_password": current_password, "new_password": new_password})
        self._call("POST", self._api.change_password, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class CustomFieldsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = CustomFieldsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[CustomFieldCreateParams]) -> ContactField:
        """`key`, `label`, `type` (`text`, `number`, `date`, `boolean`, `choice`) and, for `choice`, `options`."""
        return self._call("POST", self._api.create, _body(ContactFieldCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> List[ContactField]:
        """Every custom field of the account (at most 100: one call, no pages)."""
        answer: ContactFieldList = self._call("GET", self._api.list, timeout=timeout, max_retries=max_retries)
        return list(answer.data)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ContactField:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[CustomFieldUpdateParams]) -> ContactField:
        return self._call("PATCH", self._api.update, id, _body(ContactFieldUpdate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Removes the definition; the values stay in contacts' `attributes` as free attributes."""
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class SegmentsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = SegmentsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[SegmentCreateParams]) -> Segment:
        """`name`, `rules` (`{"all": [...]}`, `{"any": [...]}` or one condition) and optionally `description`."""
        return self._call("POST", self._api.create, _body(SegmentCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Segment:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[SegmentUpdateParams]) -> Segment:
        return self._call("PATCH", self._api.update, id, _body(SegmentUpdate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[Segment]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def preview(
        self, *, rules: Mapping[str, Any], sample_size: Optional[int] = None, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> SegmentPreview:
        """How many contacts `rules` match now, and the first `sample_size` of them (nothing is saved)."""
        body = _body(SegmentPreviewRequest, {"rules": rules, **({"sample_size": sample_size} if sample_size is not None else {})})
        return self._call("POST", self._api.preview, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def contacts(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[Contact]:
        """The contacts the segment matches now, oldest first."""
        return self._list(self._api.contacts, id, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)


class TagsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = TagsApi(client.api_client)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[TagCount]:
        """Every tag with how many contacts carry it, by name."""
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def rename(self, name: str, *, to: str, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> TagCount:
        """Renames `name` to `to` on every contact; into an existing tag, the two merge."""
        return self._call("PATCH", self._api.rename, name, _validated(TagRename, {"name": to}), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, name: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, name, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def bulk(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[TagBulkParams]) -> TagBulkResult:
        """Adds and removes tags on up to 10,000 contacts (`contact_ids` or `emails`), a segment's members (`segment_id`) or a list's (`list_id`)."""
        return self._call("POST", self._api.bulk, _body(TagBulkRequest, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class TemplatesResource(_Resource):
    """Templates: an editable draft, numbered versions that `publish` freezes, render and test send."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = TemplatesApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[TemplateCreateParams]) -> Template:
        """`name`, and optionally `description`, `subject`, `html`, `text` (the draft)."""
        return self._call("POST", self._api.create, _body(TemplateCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Template:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[TemplateUpdateParams]) -> Template:
        """Changes the draft's fields given (PATCH); published versions stay as they are."""
        return self._call("PATCH", self._api.update, id, _body(TemplateUpdate, fields), timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[Template]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def publish(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> TemplateVersion:
        """Freezes the draft into the next numbered version."""
        return self._call("POST", self._api.publish, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def versions(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[TemplateVersion]:
        """Published versions, newest first."""
        return self._list(self._api.versions, id, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def version(self, id: str, version: int, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> TemplateVersion:
        return self._call("GET", self._api.version, id, version, timeout=timeout, max_retries=max_retries)

    def render(
        self,
        id: str,
        *,
        data: Optional[Mapping[str, Any]] = None,
        contact_id: Optional[str] = None,
        version: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> TemplateRendered:
        """`subject`, `html` and `text` of the draft (or `version`) for `data` and/or a contact."""
        fields = {k: v for k, v in {"data": data, "contact_id": contact_id, "version": version}.items() if v is not None}
        return self._call("POST", self._api.render, id, _body(TemplateRenderRequest, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def test(
        self,
        id: str,
        *,
        emails: List[str],
        from_email: str,
        from_name: Optional[str] = None,
        data: Optional[Mapping[str, Any]] = None,
        version: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> CampaignTestResult:
        """Sends a test of the draft (or `version`) to `emails`."""
        fields = {k: v for k, v in {"emails": emails, "from_email": from_email, "from_name": from_name, "data": data, "version": version}.items() if v is not None}
        return self._call("POST", self._api.test, id, _body(TemplateTestRequest, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class ListsResource(_Resource):
    """Lists and their members (`client.lists`)."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ListsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ListCreateParams]) -> MailingList:
        """`name`, and optionally `description`, `double_opt_in` (which needs `from_email`), `from_email`, `from_name`."""
        return self._call("POST", self._api.create, _body(MailingListCreate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> MailingList:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[ListUpdateParams]) -> MailingList:
        """Changes the fields given (PATCH)."""
        return self._call("PATCH", self._api.update, id, _body(MailingListUpdate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[MailingList]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def members(
        self, id: str, *, status: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Paginator[ListMember]:
        return self._list(self._api.members, id, timeout=timeout, max_retries=max_retries, cursor=cursor, status=status, limit=limit)

    def add_members(
        self,
        id: str,
        *,
        contact_ids: Optional[Sequence[str]] = None,
        emails: Optional[Sequence[str]] = None,
        status: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ListMembersAddResult:
        """Up to 10,000 contacts by id and email in all."""
        fields: Dict[str, Any] = {k: v for k, v in {"contact_ids": contact_ids, "emails": emails, "status": status}.items() if v is not None}
        return self._call("POST", self._api.add_members, id, _body(ListMembersAdd, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def remove_members(
        self,
        id: str,
        *,
        contact_ids: Optional[Sequence[str]] = None,
        emails: Optional[Sequence[str]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ListMembersRemoveResult:
        fields: Dict[str, Any] = {k: v for k, v in {"contact_ids": contact_ids, "emails": emails}.items() if v is not None}
        return self._call("POST", self._api.remove_members, id, _body(ListMembersRemove, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def form(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ListForm:
        return self._call("GET", self._api.form, id, timeout=timeout, max_retries=max_retries)


class ContactListsResource(_Resource):
    """The lists a contact is a member of (`client.contact_lists`)."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ContactListsApi(client.api_client)

    def list(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[ContactListMembership]:
        return self._list(self._api.list, id, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)


class PublicListsResource(_Resource):
    """Subscription from public forms, no credential needed (`client.public_lists`)."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = PublicListsApi(client.api_client)

    def subscribe(
        self, public_id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Unpack[PublicSubscribeParams]
    ) -> PublicSubscribeResult:
        """`email`, and optionally `first_name`, `last_name`."""
        return self._call("POST", self._api.subscribe, public_id, _body(PublicSubscribeRequest, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


def _email_fields(from_: Optional[MailboxParams], fields: Mapping[str, Any]) -> Dict[str, Any]:
    """`from_` is the contract's `from` (a Python keyword); `scheduled_at` goes out in UTC."""
    out: Dict[str, Any] = dict(fields)
    if from_ is not None:
        out["from"] = from_
    if out.get("scheduled_at") is not None:
        out["scheduled_at"] = _utc(out["scheduled_at"])
    return out


def _mailbox(value: Any, pointer: str) -> Any:
    """An address (`"ada@example.com"`) or `{"email", "name"}` as the generated union model holds
    it: pydantic cannot build the union from either by itself (it would send null). Anything else
    is left to the request model, which refuses it with its pointer."""
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(EmailNamedAddress.model_fields))
        if unknown:
            raise local_validation_error("validation_failed", [(f"{pointer}/{name}", "is not a known field") for name in unknown])
        try:
            return EmailMailbox(EmailNamedAddress.model_validate(dict(value)))
        except pydantic.ValidationError as error:
            raise _field_errors(error, lambda loc: pointer + _body_pointer(loc)) from None
    if isinstance(value, (str, EmailNamedAddress)):
        try:
            return EmailMailbox(value)
        except pydantic.ValidationError as error:
            raise _field_errors(error, lambda loc: pointer) from None
    return value


def _mailboxes(fields: Dict[str, Any]) -> Dict[str, Any]:
    """`from`, `to`, `cc` and `bcc` of `emails.send`, each address in either form, as the request model takes them."""
    out = dict(fields)
    if "from" in out:
        out["from"] = _mailbox(out["from"], "/from")
    for name in ("to", "cc", "bcc"):
        given = out.get(name)
        if isinstance(given, (list, tuple)):
            out[name] = [_mailbox(value, f"/{name}/{i}") for i, value in enumerate(given)]
    return out


class EmailsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = EmailsApi(client.api_client)

    def send(
        self,
        *,
        from_: MailboxParams,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        **fields: Unpack[EmailParams],
    ) -> EmailSendResult:
        """`from_`, `to`, `subject`, `html` and/or `text`, and optionally `cc`, `bcc`, `reply_to`,
        `headers`, `attachments`, `tags`, `metadata`, `track_opens`, `track_clicks`, `scheduled_at`;
        or `template_id` (with `template_version`, `data`) instead of `subject`, `html` and `text`.
        Each address is a string (`"ada@example.com"`) or `{"email": …, "name": …}`, mixed as you like.
        Answers one entry per recipient: its id and `queued`, or `refused` with the reason."""
        body = _body(EmailSendRequest, _mailboxes(_email_fields(from_, fields)))
        return self._call("POST", self._api.send, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def batch(
        self, *, emails: List[Mapping[str, Any]], idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> EmailBatchResult:
        """Up to 500 requests (dicts as `send` takes them, with `from`), each accepted or refused on its own."""
        body = _validated(EmailBatchRequest, {"emails": [_email_fields(None, e) for e in emails]})
        return self._call("POST", self._api.batch, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Email:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **filters: Any) -> Paginator[Email]:
        """Filters: `status`, `to`, `tag`, `created_after`, `created_before`."""
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit, **filters)

    def cancel(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Email:
        """Cancels a scheduled email."""
        return self._call("POST", self._api.cancel, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class SuppressionsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = SuppressionsApi(client.api_client)

    def create(
        self,
        *,
        emails: List[str],
        reason: Optional[str] = None,
        detail: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None, max_retries: Optional[int] = None,
    ) -> SuppressionAddResult:
        """Suppresses up to 10,000 addresses; `reason`: `manual` (default), `unsubscribed`, `bounced`, `complained`."""
        fields: Dict[str, Any] = {"emails": emails, "reason": reason, "detail": detail}
        body = _body(SuppressionCreateRequest, {k: v for k, v in fields.items() if v is not None})
        return self._call("POST", self._api.create, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def import_csv(
        self,
        csv: str,
        *,
        reason: Optional[str] = None,
        detail: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None, max_retries: Optional[int] = None,
    ) -> SuppressionImportResult:
        """Suppresses the addresses of CSV text: the first cell of each row (a header `email` is skipped)."""
        fields: Dict[str, Any] = {"csv": csv, "reason": reason, "detail": detail}
        body = _body(SuppressionCsvImportRequest, {k: v for k, v in fields.items() if v is not None})
        return self._call("POST", self._api.import_csv, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Suppression:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, reason: str, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Takes the address off the list, saying why; its suppressed contact is subscribed again."""
        self._call("DELETE", self._api.delete, id, reason, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(
        self,
        *,
        reason: Optional[str] = None,
        email: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        timeout: Optional[float] = None, max_retries: Optional[int] = None,
    ) -> Paginator[Suppression]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, reason=reason, email=email, limit=limit)


class TopicsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = TopicsApi(client.api_client)

    def create(
        self, *, name: str, description: Optional[str] = None, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Topic:
        body = _body(TopicCreate, {"name": name, **({"description": description} if description is not None else {})})
        return self._call("POST", self._api.create, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Topic:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **fields: Any) -> Topic:
        """`name` and/or `description`."""
        return self._call("PATCH", self._api.update, id, _body(TopicUpdate, fields), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[Topic]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)


class ContactTopicsResource(_Resource):
    """A contact's topic opt-outs."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ContactTopicsApi(client.api_client)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ContactTopicOptouts:
        """The topics contact `id` left."""
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def replace(
        self, id: str, *, topic_ids: Sequence[str], idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> ContactTopicOptouts:
        """Replaces the topics contact `id` left."""
        body = _body(ContactTopicOptoutsUpdate, {"topic_ids": list(topic_ids)})
        return self._call("PUT", self._api.replace, id, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class ContactExportsResource(_Resource):
    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ContactExportsApi(client.api_client)

    def create(self, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None, **filters: Any) -> ContactExport:
        """Starts a CSV export; filters as `contacts.list`: `status`, `tag`, `email`, `q`, `created_after`, `created_before`."""
        given = {k: v for k, v in filters.items() if v is not None}
        return self._call("POST", self._api.create, _body(ContactExportFilters, given), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ContactExport:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def wait(self, id: str, *, timeout: float = WAIT_TIMEOUT, interval: float = WAIT_INTERVAL, max_retries: Optional[int] = None) -> ContactExport:
        """Polls the export every `interval` seconds until it is `completed` or `failed` and
        answers it; `APITimeoutError` naming it and its last status after `timeout` seconds."""
        return _wait("export", id, lambda: self.get(id, max_retries=max_retries), EXPORT_FINAL, timeout, interval)

    def download(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> str:
        """The CSV of a completed export."""
        return self._call("GET", self._api.download, id, timeout=timeout, max_retries=max_retries)


class AccountsResource(_Resource):
    """The caller's account: `client.accounts.get()`, `client.accounts.update(name=…, timezone=…)`."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = AccountsApi(client.api_client)

    def get(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Account:
        return self._call("GET", self._api.get, timeout=timeout, max_retries=max_retries)

    def update(self, *, name: Optional[str] = None, timezone: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Account:
        """A new `name` or default `timezone` (owners and admins, in a logged-in session)."""
        given = {"name": name, "timezone": timezone}
        body = _body(AccountUpdate, {key: value for key, value in given.items() if value is not None})
        return self._call("PATCH", self._api.update, body, timeout=timeout, max_retries=max_retries)


class DomainsResource(_Resource):
    """Sending domains: `client.domains.create(name=…)`, then publish its `records` and `verify`."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = DomainsApi(client.api_client)

    def create(self, *, name: str, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Domain:
        """Adds the domain; the answer lists the DNS records to publish."""
        return self._call("POST", self._api.create, _body(DomainCreate, {"name": name}), idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Domain:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[Domain]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)

    def verify(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Domain:
        """Looks the records up now; each record's `status` says what was found."""
        return self._call("POST", self._api.verify, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def rotate_dkim(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Domain:
        return self._call("POST", self._api.rotate_dkim, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def retire_dkim(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Domain:
        return self._call("POST", self._api.retire_dkim, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


def _given(fields: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


class AutomationsResource(_Resource):
    """Journeys: `client.automations.create(name=…, trigger={…}, steps=[…])`, then `activate`."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = AutomationsApi(client.api_client)

    def create(
        self,
        *,
        name: str,
        trigger: Mapping[str, Any],
        steps: Sequence[Mapping[str, Any]],
        settings: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Automation:
        """Saves a draft; its steps are checked as a graph (400 at the step at fault)."""
        body = _body(AutomationCreate, _given({"name": name, "trigger": trigger, "steps": list(steps), "settings": settings}))
        return self._call("POST", self._api.create, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list(
        self, *, status: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Paginator[Automation]:
        return self._list(self._api.list, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit, status=status)

    def get(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Automation:
        return self._call("GET", self._api.get, id, timeout=timeout, max_retries=max_retries)

    def update(
        self,
        id: str,
        *,
        name: Optional[str] = None,
        trigger: Optional[Mapping[str, Any]] = None,
        steps: Optional[Sequence[Mapping[str, Any]]] = None,
        settings: Optional[Mapping[str, Any]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Automation:
        """New steps on an active automation make a new version; contacts in flight finish on theirs."""
        body = _body(AutomationUpdate, _given({"name": name, "trigger": trigger, "steps": None if steps is None else list(steps), "settings": settings}))
        return self._call("PATCH", self._api.update, id, body, timeout=timeout, max_retries=max_retries)

    def delete(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        self._call("DELETE", self._api.delete, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def activate(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Automation:
        return self._call("POST", self._api.activate, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def pause(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Automation:
        return self._call("POST", self._api.pause, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def archive(self, id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Automation:
        return self._call("POST", self._api.archive, id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def webhook_secret(self, id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> AutomationWebhookSecret:
        """The secret that signs its webhook steps' posts: `Webhook(secret).verify(...)`."""
        return self._call("GET", self._api.webhook_secret, id, timeout=timeout, max_retries=max_retries)

    def enroll(
        self,
        id: str,
        *,
        contact_ids: Optional[Sequence[str]] = None,
        emails: Optional[Sequence[str]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> EnrollmentResult:
        """Enrols contacts by id or address (up to 10,000); the re-entry setting applies."""
        body = _body(EnrollmentCreate, _given({"contact_ids": None if contact_ids is None else list(contact_ids), "emails": None if emails is None else list(emails)}))
        return self._call("POST", self._api.enroll, id, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)

    def list_enrollments(
        self,
        id: str,
        *,
        status: Optional[str] = None,
        contact_id: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Paginator[Enrollment]:
        return self._list(self._api.list_enrollments, id, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit, status=status, contact_id=contact_id)

    def cancel_enrollment(
        self, id: str, enrollment_id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Enrollment:
        return self._call("POST", self._api.cancel_enrollment, id, enrollment_id, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)


class ContactAutomationsResource(_Resource):
    """A contact's enrolments in every automation (`client.contact_automations`)."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ContactAutomationsApi(client.api_client)

    def list(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Paginator[Enrollment]:
        return self._list(self._api.list, id, timeout=timeout, max_retries=max_retries, cursor=cursor, limit=limit)


class ContactEventsResource(_Resource):
    """Custom events about a contact, which trigger and resume journeys (`client.contact_events`)."""

    def __init__(self, client: "Sendline") -> None:
        super().__init__(client)
        self._api = ContactEventsApi(client.api_client)

    def create(
        self,
        id: str,
        *,
        name: str,
        properties: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ContactEvent:
        body = _body(ContactEventCreate, _given({"name": name, "properties": properties}))
        return self._call("POST", self._api.create, id, body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries)
