"""The webhook verifier: raw bodies as bytes or str, headers in any form, unknown event types."""
import base64
import json
import time

import pytest

import sendline
from sendline.webhooks import UnknownEvent, Webhook

SECRET = "whsec_" + base64.b64encode(b"a 32 byte secret for the tests!!").decode()


def delivery(event_type="webhook.test", data=None, at=None):
    body = json.dumps(
        {"id": "evt_1", "type": event_type, "created_at": "2026-11-23T06:00:00.000Z", "account_id": "acc_1",
         "data": data if data is not None else {"webhook_id": "wh_1", "message": "Grüße 🎉"}},
        ensure_ascii=False,
    ).encode("utf-8")
    timestamp = int(at if at is not None else time.time())
    headers = {"webhook-id": "evt_1", "webhook-timestamp": str(timestamp), "webhook-signature": Webhook(SECRET).sign("evt_1", timestamp, body)}
    return body, headers


def test_bytes_and_str_bodies_verify_and_answer_the_typed_event():
    body, headers = delivery()
    for payload in (body, body.decode("utf-8")):
        event = Webhook(SECRET).verify(payload, headers)
        assert isinstance(event, sendline.WebhookTestEvent)
        assert event.type == "webhook.test" and event.data.message == "Grüße 🎉"


def test_the_secret_works_without_its_prefix():
    body, headers = delivery()
    assert Webhook(SECRET.removeprefix("whsec_")).verify(body, headers).id == "evt_1"


def test_headers_in_any_case_as_lists_or_wsgi_keys():
    body, headers = delivery()
    verifier = Webhook(SECRET)
    assert verifier.verify(body, {k.title(): v for k, v in headers.items()}).id == "evt_1"
    assert verifier.verify(body, {k.upper(): [v] for k, v in headers.items()}).id == "evt_1"
    assert verifier.verify(body, {"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()}).id == "evt_1"
    assert verifier.verify(body, list(headers.items())).id == "evt_1"
    environ = {"wsgi.version": (1, 0), "wsgi.input": object(), "CONTENT_LENGTH": "12"}
    assert verifier.verify(body, {**environ, **{"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()}}).id == "evt_1"


def test_one_of_several_signatures_suffices():
    body, headers = delivery()
    other = Webhook("whsec_" + base64.b64encode(b"another secret of thirty-two byte").decode())
    headers["webhook-signature"] = other.sign("evt_1", int(headers["webhook-timestamp"]), body) + " " + headers["webhook-signature"]
    assert Webhook(SECRET).verify(body, headers).id == "evt_1"


def test_an_unknown_event_type_answers_a_generic_event():
    body, headers = delivery("contact.teleported", {"contact_id": "ct_1", "where": "Mars"})
    event = Webhook(SECRET).verify(body, headers)
    assert isinstance(event, UnknownEvent)
    assert (event.id, event.type, event.account_id, event.data) == ("evt_1", "contact.teleported", "acc_1", {"contact_id": "ct_1", "where": "Mars"})


@pytest.mark.parametrize(
    "alter",
    [
        lambda body, headers: (body + b" ", headers),
        lambda body, headers: (body, {**headers, "webhook-signature": "v1,!!!not base64!!!"}),
        lambda body, headers: (body, {**headers, "webhook-signature": "v1,YWJj="}),
        lambda body, headers: (body, {**headers, "webhook-signature": "v1"}),
        lambda body, headers: (body, {**headers, "webhook-signature": headers["webhook-signature"].replace("v1,", "v2,")}),
        lambda body, headers: (body, {**headers, "webhook-timestamp": "soon"}),
        lambda body, headers: (body, {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) + 1)}),
        lambda body, headers: (body, {k: v for k, v in headers.items() if k != "webhook-id"}),
        lambda body, headers: (b"\xff\xfe", headers),
    ],
)
def test_anything_amiss_is_a_verification_error(alter):
    body, headers = alter(*delivery())
    with pytest.raises(sendline.WebhookVerificationError) as raised:
        Webhook(SECRET).verify(body, headers)
    assert isinstance(raised.value, sendline.SendlineError) and raised.value.status is None


@pytest.mark.parametrize("skew", [-301, 301])
def test_the_tolerance_is_five_minutes_either_way(skew):
    body, headers = delivery(at=time.time() + skew)
    with pytest.raises(sendline.WebhookVerificationError, match="^webhook timestamp is more than 300 s from now$"):
        Webhook(SECRET).verify(body, headers)
    body, headers = delivery(at=time.time() + (290 if skew > 0 else -290))
    assert Webhook(SECRET).verify(body, headers).id == "evt_1"


def test_a_signed_body_that_is_not_json_is_a_verification_error():
    verifier = Webhook(SECRET)
    timestamp = int(time.time())
    headers = {"webhook-id": "evt_1", "webhook-timestamp": str(timestamp), "webhook-signature": verifier.sign("evt_1", timestamp, b"not json")}
    with pytest.raises(sendline.WebhookVerificationError):
        verifier.verify(b"not json", headers)


def test_a_malformed_secret_is_a_verification_error():
    with pytest.raises(sendline.WebhookVerificationError):
        Webhook("whsec_***")


@pytest.mark.parametrize(
    "alter, message",
    [
        (lambda body, headers: (body, {k: v for k, v in headers.items() if k != "webhook-signature"}),
         "missing webhook-id, webhook-timestamp or webhook-signature header"),
        (lambda body, headers: (body, {**headers, "webhook-timestamp": "soon"}), "webhook timestamp is not a number"),
        (lambda body, headers: (body, {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) - 301)}),
         "webhook timestamp is more than 300 s from now"),
        (lambda body, headers: (body + b" ", headers), "no webhook signature matches"),
    ],
)
def test_verification_errors_are_worded_as_in_every_sdk(alter, message):
    body, headers = alter(*delivery())
    with pytest.raises(sendline.WebhookVerificationError) as raised:
        Webhook(SECRET).verify(body, headers)
    assert str(raised.value) == message


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"id": "evt_1"}'])
def test_a_signed_body_that_is_not_an_event_is_worded_as_in_every_sdk(body):
    verifier = Webhook(SECRET)
    timestamp = int(time.time())
    headers = {"webhook-id": "evt_1", "webhook-timestamp": str(timestamp), "webhook-signature": verifier.sign("evt_1", timestamp, body)}
    with pytest.raises(sendline.WebhookVerificationError) as raised:
        verifier.verify(body, headers)
    assert str(raised.value) == "webhook body is not a JSON event"


@pytest.mark.parametrize("secret", ["whsec_***", "not base64!!", "whsec_", ""])
def test_a_secret_that_is_not_base64_is_refused_with_the_common_wording(secret):
    with pytest.raises(sendline.WebhookVerificationError) as raised:
        Webhook(secret)
    assert str(raised.value) == "webhook secret is not a whsec_ base64 secret"


def test_a_known_type_whose_data_does_not_fit_is_an_unknown_event():
    body, headers = delivery("contact.created", {"contact": {"id": "ct_1"}})
    event = Webhook(SECRET).verify(body, headers)
    assert type(event) is UnknownEvent and event.type == "contact.created" and event.data == {"contact": {"id": "ct_1"}}
