"""The keyword arguments of the client's methods that send a body: the fields of the contract's
request models, typed for type checkers (a misspelt or missing field is an error before running).
Hand-written; kept across regeneration."""
from __future__ import annotations

from datetime import date, datetime
from typing import Any, Mapping, Optional, Sequence, Union

from typing_extensions import Required, TypedDict

from sendline.models.audience import Audience
from sendline.models.email_named_address import EmailNamedAddress
from sendline.models.import_contact_row import ImportContactRow

DateTime = Union[datetime, date, str]
"""A `datetime` (naive means UTC), a `date` (that day at 00:00:00Z) or an RFC 3339 string."""


class _ContactFields(TypedDict, total=False):
    first_name: Optional[str]
    last_name: Optional[str]
    attributes: Optional[Mapping[str, Any]]
    tags: Optional[Sequence[str]]
    timezone: Optional[str]
    status: str
    status_reason: Optional[str]


class ContactCreateParams(_ContactFields, total=False):
    """`contacts.create` and `contacts.replace`."""

    email: Required[str]


class ContactUpdateParams(_ContactFields, total=False):
    """`contacts.update`: the fields to change."""

    email: str


class AudienceParams(TypedDict, total=False):
    tags_any: Sequence[str]
    tags_all: Sequence[str]
    exclude_tags: Sequence[str]
    list_ids: Sequence[str]


class CampaignParams(TypedDict, total=False):
    name: Required[str]
    subject: str
    from_email: Required[str]
    content: str
    from_name: Optional[str]
    reply_to: Optional[str]
    text_content: Optional[str]
    preheader: Optional[str]
    content_source: Optional[Mapping[str, Any]]
    audience: Union[Audience, AudienceParams, None]
    track_opens: bool
    track_clicks: bool
    template_id: Optional[str]
    template_version: Optional[int]
    template_data: Optional[Mapping[str, Any]]
    web_version_link: bool
    archive: bool
    archive_meta: Optional[Mapping[str, Any]]
    variants: Optional[Sequence[Mapping[str, Any]]]
    ab_test: Optional[Mapping[str, Any]]


class ContactImportParams(TypedDict, total=False):
    contacts: Required[Sequence[Union[ImportContactRow, Mapping[str, Any]]]]
    mode: str
    tags: Sequence[str]
    list_ids: Sequence[str]


class ApiKeyCreateParams(TypedDict, total=False):
    name: Required[str]
    scopes: Sequence[str]
    allowed_ips: Optional[Sequence[str]]
    rate_limit_per_minute: Optional[int]
    expires_at: Optional[DateTime]


class ApiKeyUpdateParams(TypedDict, total=False):
    name: str
    scopes: Sequence[str]
    allowed_ips: Optional[Sequence[str]]
    rate_limit_per_minute: Optional[int]


class WebhookParams(TypedDict, total=False):
    url: Required[str]
    events: Required[Sequence[str]]
    description: Optional[str]
    active: bool


class ConversionParams(TypedDict, total=False):
    type: Required[str]
    contact_id: str
    email: str
    campaign_id: str
    click_token: str
    value: Optional[str]
    currency: Optional[str]
    affiliate_id: Optional[str]
    external_id: Optional[str]
    occurred_at: DateTime


class PaymentParams(TypedDict, total=False):
    amount: Required[str]
    currency: Required[str]
    external_id: Required[str]
    contact_id: str
    email: str
    campaign_id: str
    occurred_at: DateTime


class BounceParams(TypedDict, total=False):
    type: Required[str]
    message_id: str
    email: str
    reason: Optional[str]
    diagnostic_code: Optional[str]
    occurred_at: DateTime


class UserCreateParams(TypedDict, total=False):
    email: Required[str]
    password: Required[str]
    name: Required[str]
    role: str


class UserUpdateParams(TypedDict, total=False):
    name: str
    role: str
    password: str


class RegisterParams(TypedDict, total=False):
    email: Required[str]
    password: Required[str]
    name: Required[str]
    account_name: Required[str]


class CustomFieldCreateParams(TypedDict, total=False):
    key: Required[str]
    label: Required[str]
    type: Required[str]
    options: Sequence[str]


class CustomFieldUpdateParams(TypedDict, total=False):
    label: str
    options: Sequence[str]


class SegmentCreateParams(TypedDict, total=False):
    name: Required[str]
    rules: Required[Mapping[str, Any]]
    description: Optional[str]


class SegmentUpdateParams(TypedDict, total=False):
    name: str
    rules: Mapping[str, Any]
    description: Optional[str]


class ContactBulkParams(TypedDict, total=False):
    """`action`, its `tags` or `list_id`, and exactly one of `contact_ids` or `filter` (the filters of `contacts.list`)."""

    action: Required[str]
    tags: Sequence[str]
    list_id: str
    contact_ids: Sequence[str]
    filter: Mapping[str, Any]


class TagBulkParams(TypedDict, total=False):
    """`add` and/or `remove`, and exactly one of `contact_ids`, `emails`, `segment_id`, `list_id`."""

    add: Sequence[str]
    remove: Sequence[str]
    contact_ids: Sequence[str]
    emails: Sequence[str]
    segment_id: str
    list_id: str


class TemplateCreateParams(TypedDict, total=False):
    name: Required[str]
    description: Optional[str]
    subject: str
    html: str
    text: Optional[str]


class TemplateUpdateParams(TypedDict, total=False):
    name: str
    description: Optional[str]
    subject: str
    html: str
    text: Optional[str]


class ListCreateParams(TypedDict, total=False):
    """`lists.create`; `lists.update` takes the same fields, each optional."""

    name: Required[str]
    description: Optional[str]
    double_opt_in: bool
    from_email: Optional[str]
    from_name: Optional[str]


class ListUpdateParams(TypedDict, total=False):
    name: str
    description: Optional[str]
    double_opt_in: bool
    from_email: Optional[str]
    from_name: Optional[str]


class PublicSubscribeParams(TypedDict, total=False):
    email: Required[str]
    first_name: str
    last_name: str
    timezone: str


class EmailAddressParams(TypedDict, total=False):
    email: Required[str]
    name: str


MailboxParams = Union[str, EmailAddressParams, EmailNamedAddress]
"""An address: `"ada@example.com"`, or `{"email": "ada@example.com", "name": "Ada"}` (or the model) with the name shown beside it."""


class EmailAttachmentParams(TypedDict, total=False):
    filename: Required[str]
    content_type: Required[str]
    content: Required[str]
    """Base64."""


class EmailParams(TypedDict, total=False):
    """`emails.send` (with `from_` for the contract's `from`, a Python keyword)."""

    to: Required[Sequence[MailboxParams]]
    subject: str
    cc: Sequence[MailboxParams]
    bcc: Sequence[MailboxParams]
    reply_to: str
    html: str
    text: str
    headers: Mapping[str, str]
    attachments: Sequence[EmailAttachmentParams]
    tags: Sequence[str]
    metadata: Mapping[str, str]
    track_opens: bool
    track_clicks: bool
    scheduled_at: DateTime
    template_id: str
    template_version: int
    data: Mapping[str, Any]
