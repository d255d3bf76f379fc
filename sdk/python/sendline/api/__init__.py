# flake8: noqa

# import apis into api package
from sendline.api.accounts_api import AccountsApi
from sendline.api.analytics_api import AnalyticsApi
from sendline.api.api_keys_api import ApiKeysApi
from sendline.api.auth_api import AuthApi
from sendline.api.automations_api import AutomationsApi
from sendline.api.campaigns_api import CampaignsApi
from sendline.api.contact_automations_api import ContactAutomationsApi
from sendline.api.contact_events_api import ContactEventsApi
from sendline.api.contact_exports_api import ContactExportsApi
from sendline.api.contact_imports_api import ContactImportsApi
from sendline.api.contact_lists_api import ContactListsApi
from sendline.api.contact_topics_api import ContactTopicsApi
from sendline.api.contacts_api import ContactsApi
from sendline.api.conversions_api import ConversionsApi
from sendline.api.custom_fields_api import CustomFieldsApi
from sendline.api.domains_api import DomainsApi
from sendline.api.emails_api import EmailsApi
from sendline.api.events_api import EventsApi
from sendline.api.lists_api import ListsApi
from sendline.api.payments_api import PaymentsApi
from sendline.api.public_lists_api import PublicListsApi
from sendline.api.segments_api import SegmentsApi
from sendline.api.suppressions_api import SuppressionsApi
from sendline.api.tags_api import TagsApi
from sendline.api.templates_api import TemplatesApi
from sendline.api.topics_api import TopicsApi
from sendline.api.tracking_api import TrackingApi
from sendline.api.users_api import UsersApi
from sendline.api.webhooks_api import WebhooksApi

