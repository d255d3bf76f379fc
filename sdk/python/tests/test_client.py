"""The client against real HTTP servers on loopback: retries, timeouts, errors, headers, dates,
pagination and CSV uploads, as they go over the wire."""
import io
import json
import re
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import Answer, contact, elapsed

import sendline
from sendline._client import normalize_base_url

KEY = "sl_live_supersecretkey0123456789"
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def client_of(server, **options):
    return sendline.Sendline(api_key=KEY, base_url=server.url, **options)


def problem(status, code, **extra):
    return {"type": f"/docs/errors#{code}", "title": "T", "status": status, "detail": f"{code} detail", "code": code, **extra}


def test_a_503_is_retried_with_backoff_under_the_same_idempotency_key(server):
    server.answers = [Answer(503, problem(503, "unavailable")), Answer(503, problem(503, "unavailable")), Answer(201, contact())]
    created = client_of(server).contacts.create(email="ada@example.com")
    assert created.id == "ct_1" and isinstance(created, sendline.Contact)
    keys = [r.headers["idempotency-key"] for r in server.received]
    assert len(keys) == 3 and len(set(keys)) == 1 and UUID4.match(keys[0])
    assert all(json.loads(r.body) == {"email": "ada@example.com"} for r in server.received)


def test_the_callers_idempotency_key_is_sent_on_every_attempt(server):
    server.answers = [Answer(500, problem(500, "internal_error")), Answer(201, contact())]
    client_of(server).contacts.create(email="ada@example.com", idempotency_key="signup-42")
    assert [r.headers["idempotency-key"] for r in server.received] == ["signup-42", "signup-42"]


def test_each_call_has_its_own_key_and_gets_carry_none(server):
    server.answers = [Answer(201, contact()), Answer(201, contact()), Answer(200, contact())]
    client = client_of(server)
    client.contacts.create(email="ada@example.com")
    client.contacts.create(email="ada@example.com")
    client.contacts.get("ct_1")
    first, second, get = server.received
    assert first.headers["idempotency-key"] != second.headers["idempotency-key"]
    assert "idempotency-key" not in get.headers


def test_a_429_with_retry_after_1_is_retried_after_a_second(server):
    server.answers = [Answer(429, problem(429, "rate_limited"), {"Retry-After": "1"}), Answer(200, contact())]
    started = time.monotonic()
    assert client_of(server).contacts.get("ct_1").id == "ct_1"
    assert len(server.received) == 2 and 0.95 <= elapsed(started) < 5


def test_a_429_with_a_long_retry_after_raises_at_once(server):
    server.answers = [Answer(429, problem(429, "rate_limited"), {"Retry-After": "52"}), Answer(200, contact())]
    started = time.monotonic()
    with pytest.raises(sendline.RateLimitError) as raised:
        list(client_of(server).contacts.list())
    assert raised.value.retry_after == 52 and raised.value.status == 429 and raised.value.code == "rate_limited"
    assert len(server.received) == 1 and elapsed(started) < 1


def test_retry_after_as_an_http_date(server):
    later = datetime.now(timezone.utc) + timedelta(seconds=120)
    server.answers = [Answer(503, problem(503, "unavailable"), {"Retry-After": later.strftime("%a, %d %b %Y %H:%M:%S GMT")})]
    with pytest.raises(sendline.ServerError):
        client_of(server).contacts.get("ct_1")
    assert len(server.received) == 1


def test_retries_stop_after_max_retries_and_zero_disables_them(server):
    server.answers = [Answer(502, problem(502, "bad_gateway"))] * 5
    with pytest.raises(sendline.ServerError):
        client_of(server, max_retries=1).contacts.get("ct_1")
    assert len(server.received) == 2
    with pytest.raises(sendline.ServerError):
        client_of(server, max_retries=0).contacts.get("ct_1")
    assert len(server.received) == 3


def test_a_conflicting_idempotent_request_in_flight_is_retried_but_other_conflicts_are_not(server):
    server.answers = [Answer(409, problem(409, "idempotency_key_in_use")), Answer(201, contact())]
    client_of(server).contacts.create(email="ada@example.com")
    assert len(server.received) == 2
    server.answers = [Answer(409, problem(409, "contact_exists", existing_id="ct_9")), Answer(201, contact())]
    with pytest.raises(sendline.ConflictError) as raised:
        client_of(server).contacts.create(email="ada@example.com")
    assert raised.value.existing_id == "ct_9" and len(server.received) == 3


def test_a_hanging_server_times_out(server):
    server.answers = [Answer(200, contact(), delay=10)]
    started = time.monotonic()
    with pytest.raises(sendline.APITimeoutError) as raised:
        client_of(server, timeout=0.5, max_retries=0).contacts.get("ct_1")
    assert 0.45 <= elapsed(started) < 2
    assert isinstance(raised.value, sendline.APIConnectionError) and raised.value.status is None
    assert raised.value.__cause__ is not None


def test_a_per_call_timeout_overrides_the_clients(server):
    server.answers = [Answer(200, contact(), delay=10)]
    started = time.monotonic()
    with pytest.raises(sendline.APITimeoutError):
        client_of(server, max_retries=0).contacts.get("ct_1", timeout=0.5)
    assert elapsed(started) < 2


def test_timeouts_are_retried(server):
    server.answers = [Answer(200, contact(), delay=10), Answer(200, contact())]
    assert client_of(server, timeout=0.5).contacts.get("ct_1").id == "ct_1"
    assert len(server.received) == 2


def test_a_refused_connection_is_an_api_connection_error(refused_url):
    started = time.monotonic()
    with pytest.raises(sendline.APIConnectionError) as raised:
        sendline.Sendline(api_key=KEY, base_url=refused_url, max_retries=0).contacts.get("ct_1")
    assert not isinstance(raised.value, sendline.APITimeoutError)
    assert "refused" in str(raised.value).lower() and raised.value.__cause__ is not None
    assert elapsed(started) < 1


@pytest.mark.parametrize(
    "status, error_class",
    [
        (400, sendline.ValidationError),
        (422, sendline.ValidationError),
        (401, sendline.AuthenticationError),
        (403, sendline.PermissionDeniedError),
        (404, sendline.NotFoundError),
        (409, sendline.ConflictError),
        (429, sendline.RateLimitError),
        (500, sendline.ServerError),
        (503, sendline.ServerError),
        (418, sendline.SendlineError),
    ],
)
def test_errors_by_status(server, status, error_class):
    errors = [{"pointer": "/email", "detail": "must be an email address"}]
    server.answers = [Answer(status, problem(status, "some_code", errors=errors), {"X-Request-Id": "req_7"})]
    with pytest.raises(error_class) as raised:
        client_of(server, max_retries=0).contacts.get("ct_1")
    error = raised.value
    assert type(error) is error_class and isinstance(error, sendline.SendlineError)
    assert error.status == status and error.code == "some_code" and error.request_id == "req_7"
    assert error.problem["detail"] == "some_code detail"
    assert str(error) == f"{status} some_code: some_code detail (request req_7)"
    if error_class is sendline.ValidationError:
        assert error.errors == [sendline.FieldError(pointer="/email", detail="must be an email address")]


def test_an_error_without_a_problem_document(server):
    server.answers = [Answer(502, "<html>Bad gateway</html>")]
    with pytest.raises(sendline.ServerError) as raised:
        client_of(server, max_retries=0).contacts.get("ct_1")
    assert raised.value.status == 502 and raised.value.code is None and raised.value.problem == {}


@pytest.mark.parametrize(
    "given",
    ["https://mail.example.com", "https://mail.example.com/", "https://mail.example.com/api", "https://mail.example.com/api/",
     "https://mail.example.com/api/v1", "https://mail.example.com/api/v1/", "https://mail.example.com/v1", "https://mail.example.com/v1/"],
)
def test_base_url_forms(given):
    assert normalize_base_url(given) == "https://mail.example.com/api/v1"
    assert sendline.Sendline(api_key=KEY, base_url=given).base_url == "https://mail.example.com/api/v1"


def test_base_url_keeps_http_and_a_path_prefix():
    assert normalize_base_url("http://localhost:3000") == "http://localhost:3000/api/v1"
    assert normalize_base_url("https://example.com/sendline/api/") == "https://example.com/sendline/api/v1"
    with pytest.raises(sendline.SendlineError):
        normalize_base_url("mail.example.com")


@pytest.mark.parametrize("suffix", ["", "/", "/api", "/api/", "/api/v1/", "/v1"])
def test_every_base_url_form_reaches_the_api(server, suffix):
    server.answers = [Answer(200, contact())]
    sendline.Sendline(api_key=KEY, base_url=server.url + suffix).contacts.get("ct_1")
    assert server.received[0].path == "/api/v1/contacts/ct_1"


def test_headers_name_the_sdk_and_carry_the_key(server):
    server.answers = [Answer(200, contact())]
    client_of(server).contacts.get("ct_1")
    headers = server.received[0].headers
    assert headers["user-agent"] == "sendline-python/0.1.0"
    assert headers["authorization"] == f"Bearer {KEY}"


def test_the_key_is_never_shown(server):
    client = client_of(server)
    assert KEY not in repr(client) and KEY not in str(client)
    server.answers = [Answer(401, problem(401, "authentication_required"))]
    with pytest.raises(sendline.AuthenticationError) as raised:
        client.contacts.get("ct_1")
    assert KEY not in str(raised.value) and KEY not in repr(raised.value)


def test_a_missing_key_is_refused_at_construction(monkeypatch):
    monkeypatch.delenv("SENDLINE_API_KEY", raising=False)
    with pytest.raises(sendline.SendlineError, match="API key"):
        sendline.Sendline()
    with pytest.raises(sendline.SendlineError, match="API key"):
        sendline.Sendline(api_key="")


def test_key_and_base_url_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("SENDLINE_API_KEY", KEY)
    monkeypatch.setenv("SENDLINE_BASE_URL", server.url)
    server.answers = [Answer(200, contact())]
    sendline.Sendline().contacts.get("ct_1")
    assert server.received[0].headers["authorization"] == f"Bearer {KEY}"


def test_login_uses_the_sessions_token(server):
    session = {"success": True, "token": "jwt.token.here", "refresh_token": "r", "expires_in": 900,
               "user": {"id": "usr_1", "account_id": "acc_1", "email": "o@example.com", "name": "O", "role": "owner",
                        "created_at": "2026-11-23T06:00:00Z"}}
    server.answers = [Answer(200, session), Answer(200, contact())]
    client = sendline.Sendline.login(server.url, "o@example.com", "pw")
    client.contacts.get("ct_1")
    login, get = server.received
    assert login.path == "/api/v1/auth/login" and json.loads(login.body) == {"email": "o@example.com", "password": "pw"}
    assert get.headers["authorization"] == "Bearer jwt.token.here"


def test_dates_go_out_as_rfc3339_in_utc(server):
    server.answers = [Answer(200, {"data": [], "next_cursor": None, "has_more": False})]
    list(client_of(server).contacts.list(created_after=datetime(2026, 11, 23, 6, 0), created_before=datetime(2026, 11, 23, 8, 0, tzinfo=timezone(timedelta(hours=2)))))
    query = parse_qs(urlsplit(server.received[0].path).query)
    assert query["created_after"] == ["2026-11-23T06:00:00.000000Z"]
    assert query["created_before"] == ["2026-11-23T06:00:00.000000Z"]


def test_dates_in_bodies_carry_an_offset(server):
    server.answers = [Answer(400, problem(400, "validation_failed"))]
    with pytest.raises(sendline.ValidationError):
        client_of(server).campaigns.schedule("cmp_1", scheduled_at=datetime(2026, 12, 1, 9, 30))
    assert json.loads(server.received[0].body) == {"scheduled_at": "2026-12-01T09:30:00+00:00"}


def test_dates_come_back_native(server):
    server.answers = [Answer(200, contact())]
    created_at = client_of(server).contacts.get("ct_1").created_at
    assert created_at == datetime(2026, 11, 23, 6, 0, tzinfo=timezone.utc)


def test_pagination_follows_cursors_lazily(server):
    pages = {
        None: {"data": [contact("ct_1"), contact("ct_2", "b@example.com")], "next_cursor": "c2", "has_more": True},
        "c2": {"data": [contact("ct_3", "c@example.com")], "next_cursor": None, "has_more": False},
    }

    def page(request):
        cursor = parse_qs(urlsplit(request.path).query).get("cursor", [None])[0]
        return Answer(200, pages[cursor])

    server.answers = [page, page]
    items = iter(client_of(server).contacts.list(tag="vip", limit=2))
    assert next(items).id == "ct_1" and len(server.received) == 1
    assert [c.id for c in items] == ["ct_2", "ct_3"] and len(server.received) == 2
    assert all(parse_qs(urlsplit(r.path).query)["tag"] == ["vip"] for r in server.received)
    server.answers = [page]
    first = client_of(server).contacts.list(limit=2).first_page()
    assert first.next_cursor == "c2" and len(first.data) == 2


def import_answer(status="queued"):
    return {"id": "imp_1", "status": status, "mode": "upsert", "total_rows": 2, "processed_rows": 0, "created": 0, "updated": 0,
            "skipped": 0, "failed": 0, "errors": [], "failure": None, "created_at": "2026-11-23T06:00:00Z", "finished_at": None}


def multipart(received):
    boundary = re.search(r"boundary=(\S+)", received.headers["content-type"]).group(1).encode()
    parts = {}
    for part in received.body.split(b"--" + boundary)[1:-1]:
        head, _, content = part[2:-2].partition(b"\r\n\r\n")
        name = re.search(rb'name="([^"]+)"', head).group(1).decode()
        parts[name] = (head.decode(), content)
    return parts


CSV = "E-mail,first_name\nada@example.com,Ada\ngrace@example.com,Grace\n"


@pytest.mark.parametrize("kind", ["path", "str path", "text", "bytes", "binary file", "text file"])
def test_import_csv_sends_a_multipart_upload(server, tmp_path, kind):
    file = tmp_path / "people.csv"
    file.write_text(CSV)
    source = {"path": file, "str path": str(file), "text": CSV, "bytes": CSV.encode(), "binary file": None, "text file": None}[kind]
    opened = open(file, "rb") if kind == "binary file" else open(file) if kind == "text file" else None
    server.answers = [Answer(202, import_answer())]
    try:
        result = client_of(server).contacts.import_csv(opened or source, mode="upsert", tags=["a", "b"], mapping={"E-mail": "email"})
    finally:
        if opened:
            opened.close()
    assert result.id == "imp_1"
    received = server.received[0]
    assert received.method == "POST" and received.path == "/api/v1/contacts/import"
    assert UUID4.match(received.headers["idempotency-key"])
    parts = multipart(received)
    assert parts["file"][1].decode() == CSV
    assert {k: v[1].decode() for k, v in parts.items() if k != "file"} == {"mode": "upsert", "tags": "a,b", "mapping": "E-mail:email"}
    assert "content-length" in received.headers or received.headers.get("transfer-encoding") == "chunked"


def test_import_csv_retries_with_the_whole_file_again(server, tmp_path):
    file = tmp_path / "people.csv"
    file.write_text(CSV)
    server.answers = [Answer(503, problem(503, "unavailable")), Answer(202, import_answer())]
    with open(file, "rb") as opened:
        client_of(server).contacts.import_csv(opened)
    first, second = server.received
    assert multipart(first)["file"][1] == multipart(second)["file"][1] == CSV.encode()
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]


def test_import_csv_streams_a_file_without_reading_it_whole(server, tmp_path):
    file = tmp_path / "big.csv"
    with open(file, "w") as out:
        out.write("email\n")
        for i in range(200_000):
            out.write(f"user{i}@example.com\n")
    server.answers = [Answer(202, import_answer())]
    client_of(server).contacts.import_csv(Path(file))
    received = server.received[0]
    assert int(received.headers["content-length"]) == len(received.body)
    assert multipart(received)["file"][1] == file.read_bytes()


def test_an_unseekable_stream_is_not_sent_twice(server):
    class Pipe(io.RawIOBase):
        def __init__(self):
            self.data = io.BytesIO(CSV.encode())

        def readable(self):
            return True

        def read(self, size=-1):
            return self.data.read(size)

    server.answers = [Answer(503, problem(503, "unavailable")), Answer(202, import_answer())]
    with pytest.raises(sendline.ServerError):
        client_of(server).contacts.import_csv(Pipe())
    assert len(server.received) == 1
    assert server.received[0].headers.get("transfer-encoding") == "chunked"


def test_wait_polls_the_import_until_it_finishes(server):
    server.answers = [Answer(200, import_answer("running")), Answer(200, import_answer("running")), Answer(200, import_answer("completed"))]
    finished = client_of(server).contact_imports.wait("imp_1", interval=0.05)
    assert finished.status == "completed" and len(server.received) == 3
    server.answers = [Answer(200, import_answer("running"))] * 10
    with pytest.raises(sendline.APITimeoutError):
        client_of(server).contact_imports.wait("imp_1", timeout=0.2, interval=0.05)


def test_a_misspelt_body_field_is_a_type_error_before_anything_is_sent(server):
    with pytest.raises(TypeError, match="frist_name"):
        client_of(server).contacts.update("ct_1", frist_name="Ada")
    assert server.received == []


def test_an_email_without_a_sender_is_a_type_error_before_anything_is_sent(server):
    # The server requires `from`: the signature says so, as mypy and a missing argument do.
    with pytest.raises(TypeError, match="from_"):
        client_of(server).emails.send(to=["ada@example.com"], subject="Hi", text="Hello")  # type: ignore[call-arg]
    assert server.received == []


def test_enum_filters_take_plain_strings(server):
    server.answers = [Answer(200, {"data": [], "next_cursor": None, "has_more": False})]
    list(client_of(server).contacts.list(status="unsubscribed"))
    assert parse_qs(urlsplit(server.received[0].path).query)["status"] == ["unsubscribed"]


def test_a_replayed_or_reused_idempotency_key_as_a_server_answers_it(server):
    """The shape of 05-sdk-client.json's idempotency steps, against a stand-in for the server's rules."""
    stored = {}

    def idempotent(request):
        key, body = request.headers["idempotency-key"], request.body
        if key not in stored:
            stored[key] = (body, contact(f"ct_{len(stored) + 1}", json.loads(body)["email"]))
            return Answer(201, stored[key][1])
        if stored[key][0] != body:
            return Answer(422, problem(422, "idempotency_key_reused"))
        return Answer(201, stored[key][1], {"Idempotent-Replayed": "true"})

    server.answers = [idempotent] * 3
    client = client_of(server)
    first = client.contacts.create(email="ada@example.com", tags=["vip"], idempotency_key="create-ada")
    again = client.contacts.create(email="ada@example.com", tags=["vip"], idempotency_key="create-ada")
    assert again.id == first.id
    with pytest.raises(sendline.ValidationError) as raised:
        client.contacts.create(email="grace@example.com", idempotency_key="create-ada")
    assert raised.value.status == 422 and raised.value.code == "idempotency_key_reused"
    assert len(server.received) == 3


def test_a_server_trickling_its_answer_times_out_as_a_whole(server):
    """Each byte comes well within the timeout, the whole answer does not."""
    server.answers = [Answer(200, contact(), trickle=0.1)]
    started = time.monotonic()
    with pytest.raises(sendline.APITimeoutError) as raised:
        client_of(server, timeout=0.5, max_retries=0).contacts.get("ct_1")
    assert 0.45 <= elapsed(started) < 1.5
    assert raised.value.__cause__ is not None


def test_a_deadline_leaves_the_next_call_alone(server):
    server.answers = [Answer(200, contact(), trickle=0.1), Answer(200, contact())]
    client = client_of(server, timeout=0.5, max_retries=0)
    with pytest.raises(sendline.APITimeoutError):
        client.contacts.get("ct_1")
    assert client.contacts.get("ct_1").id == "ct_1"
    time.sleep(0.6)
    server.answers = [Answer(200, contact())]
    assert client.contacts.get("ct_1").id == "ct_1"


def test_only_date_time_parameters_are_read_as_dates(server):
    server.answers = [Answer(200, {"data": [], "next_cursor": None, "has_more": False})]
    list(client_of(server).contacts.list(tag="2026", q="2026-11-23", created_after="2026-11-23T08:00:00+02:00"))
    query = parse_qs(urlsplit(server.received[0].path).query)
    assert (query["tag"], query["q"], query["created_after"]) == (["2026"], ["2026-11-23"], ["2026-11-23T06:00:00.000000Z"])


def test_backoff_is_full_jitter_doubling_from_half_a_second_up_to_eight():
    error = sendline.ServerError("503", status=503)
    for attempt, cap in enumerate([0.5, 1, 2, 4, 8, 8, 8]):
        delays = [sendline.Sendline._retry_delay(error, attempt, 10) for _ in range(200)]
        assert all(0 <= d <= cap for d in delays) and max(delays) > cap / 2
    assert sendline.Sendline._retry_delay(error, 2, 2) is None


# Credentials and header values: a key is stripped, then must be visible ASCII; an Idempotency-Key
# follows the server's rule. Neither can add a header line, and neither is ever shown.


@pytest.mark.parametrize("given", [KEY + "\n", f"  {KEY}\r\n", f"\t{KEY} "])
def test_a_key_is_stripped_of_surrounding_whitespace(server, given):
    server.answers = [Answer(200, {"data": [], "next_cursor": None, "has_more": False})]
    sendline.Sendline(api_key=given, base_url=server.url).contacts.list(limit=1).first_page()
    assert server.received[0].headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("given", ["sl_live_SECRETPART\r\nX-Injected: yes", "sl_live_SECRET PART", "sl_live_SECRÉTPART", "sl_live_SECRET\x00PART"])
def test_a_key_that_is_not_visible_ascii_is_a_configuration_error_that_hides_it(server, given):
    with pytest.raises(sendline.ConfigurationError) as raised:
        sendline.Sendline(api_key=given, base_url=server.url)
    error = raised.value
    assert isinstance(error, sendline.SendlineError) and error.status is None
    assert "SECRET" not in str(error) and "PART" not in str(error) and "SECRET" not in repr(error)
    assert server.received == []


def test_a_missing_key_or_a_bad_base_url_is_a_configuration_error(monkeypatch):
    monkeypatch.delenv("SENDLINE_API_KEY", raising=False)
    for make in (lambda: sendline.Sendline(), lambda: sendline.Sendline(api_key=" \n"),
                 lambda: sendline.Sendline(api_key=KEY, base_url="mail.example.com"),
                 lambda: sendline.Sendline(api_key=KEY, base_url="https://mail.example.com\r\nX: y"),
                 lambda: sendline.Sendline(api_key=KEY, timeout=0), lambda: sendline.Sendline(api_key=KEY, max_retries=-1)):
        with pytest.raises(sendline.ConfigurationError) as raised:
            make()
        assert raised.value.status is None and KEY not in str(raised.value)


@pytest.mark.parametrize("given", ["x\r\nX-Injected2: yes", "", " leading", "trailing ", "a" * 256, "clé", "tab\there"])
def test_an_invalid_idempotency_key_is_a_local_validation_error(server, given):
    server.answers = [Answer(201, contact())] * 3
    client = client_of(server)
    for call in (lambda: client.contacts.create(email="ada@example.com", idempotency_key=given),
                 lambda: client.contacts.delete("ct_1", idempotency_key=given),
                 lambda: client.contacts.import_csv(CSV, idempotency_key=given)):
        with pytest.raises(sendline.ValidationError) as raised:
            call()
        error = raised.value
        assert error.status is None and error.code == "invalid_idempotency_key"
        assert [e.pointer for e in error.errors] == ["header.Idempotency-Key"] and error.errors[0].detail
    assert server.received == []


def test_idempotency_keys_at_the_edges_of_the_rule_are_sent(server):
    server.answers = [Answer(201, contact()), Answer(201, contact())]
    client = client_of(server)
    client.contacts.create(email="ada@example.com", idempotency_key="a" * 255)
    client.contacts.create(email="ada@example.com", idempotency_key="a b~!")
    assert [r.headers["idempotency-key"] for r in server.received] == ["a" * 255, "a b~!"]


# Arguments checked before sending surface as sendline.ValidationError, with the server's pointers.


@pytest.mark.parametrize("given", ["", "   ", None])
def test_an_empty_path_id_is_a_validation_error_before_any_request(server, given):
    client = client_of(server)
    for call in (lambda: client.contacts.get(given), lambda: client.contacts.delete(given),
                 lambda: client.contacts.update(given, first_name="Ada"), lambda: list(client.contacts.activity(given)),
                 lambda: client.contact_imports.wait(given)):
        with pytest.raises(sendline.ValidationError) as raised:
            call()
        assert raised.value.status is None and raised.value.code == "validation_failed"
        assert [e.pointer for e in raised.value.errors] == ["path.id"]
    with pytest.raises(sendline.ValidationError) as raised:
        client.webhooks.retry_delivery("wh_1", given)
    assert [e.pointer for e in raised.value.errors] == ["path.delivery_id"]
    assert server.received == []


def test_arguments_the_generated_layer_refuses_are_validation_errors(server):
    client = client_of(server)
    with pytest.raises(sendline.ValidationError) as raised:
        client.contacts.list(limit=1000, status="weird").first_page()
    assert raised.value.status is None and raised.value.code == "validation_failed"
    assert sorted(e.pointer for e in raised.value.errors) == ["query.limit", "query.status"]
    with pytest.raises(sendline.ValidationError) as raised:
        client.contacts.update("ct_1", tags="x")
    assert [e.pointer for e in raised.value.errors] == ["/tags"]
    with pytest.raises(sendline.ValidationError) as raised:
        client.contacts.create(email="ada@example.com", status="weird")
    assert [e.pointer for e in raised.value.errors] == ["/status"]
    with pytest.raises(sendline.ValidationError) as raised:
        client.campaigns.test("cmp_1", emails="ada@example.com")
    assert [e.pointer for e in raised.value.errors] == ["/emails"]
    assert server.received == []


# A 2xx answer that is not the JSON expected.


@pytest.mark.parametrize(
    "answer",
    [Answer(200, "<html>Welcome to nginx</html>", {"Content-Type": "text/html"}), Answer(200, "not json at all"),
     Answer(200, {"unexpected": True}), Answer(200, "null")],
)
def test_a_2xx_answer_that_is_not_the_json_expected_is_an_invalid_response(server, answer):
    server.answers = [answer, Answer(200, contact())]
    with pytest.raises(sendline.SendlineError) as raised:
        client_of(server).contacts.get("ct_1")
    error = raised.value
    assert type(error) is sendline.SendlineError
    assert error.status == 200 and error.code == "invalid_response" and str(error).startswith("200: the answer is not")
    assert len(server.received) == 1


# wait() of imports, exports and campaigns: one signature, 600 s and 1 s by default; its timeout
# names the import and its status as a plain string.


def test_wait_defaults_and_its_timeout_message(server):
    import inspect

    client = sendline.Sendline(api_key=KEY)
    for wait in (client.contact_imports.wait, client.contact_exports.wait, client.campaigns.wait):
        parameters = inspect.signature(wait).parameters
        assert list(parameters) == ["id", "timeout", "interval", "max_retries"]
        assert (parameters["timeout"].default, parameters["interval"].default) == (600, 1)
    server.answers = [Answer(200, import_answer("queued"))] * 10
    with pytest.raises(sendline.APITimeoutError) as raised:
        client_of(server).contact_imports.wait("imp_1", timeout=0.2, interval=0.05)
    assert "imp_1" in str(raised.value) and "still queued" in str(raised.value) and "ImportStatus" not in str(raised.value)


def test_enums_print_as_their_value(server):
    server.answers = [Answer(200, import_answer("running")), Answer(200, contact())]
    client = client_of(server)
    status = client.contact_imports.get("imp_1").status
    assert (str(status), f"{status}", f"{status:>8}", "%s" % status) == ("running", "running", " running", "running")
    assert f"{client.contacts.get('ct_1').status}" == "subscribed"


# A connection error names the URL (without its query string) and chains its cause.


def test_a_connection_error_names_the_url_it_could_not_reach(refused_url):
    client = sendline.Sendline(api_key=KEY, base_url=refused_url, max_retries=0)
    with pytest.raises(sendline.APIConnectionError) as raised:
        client.contacts.list(email="secret@example.com").first_page()
    message = str(raised.value)
    # The reason, not urllib3's wording around its connection object.
    assert message == f"Could not reach {refused_url}/api/v1/contacts: Connection refused"
    assert "secret" not in message and KEY not in message and raised.value.__cause__ is not None
    with pytest.raises(sendline.APIConnectionError) as raised:
        client.contacts.import_csv(CSV)
    assert str(raised.value) == f"Could not reach {refused_url}/api/v1/contacts/import: Connection refused"


# Per-call max_retries.


def test_max_retries_per_call(server):
    server.answers = [Answer(503, problem(503, "unavailable"))] * 10
    with pytest.raises(sendline.ServerError):
        client_of(server, max_retries=2).contacts.get("ct_1", max_retries=0)
    assert len(server.received) == 1
    server.answers = [Answer(503, problem(503, "unavailable")), Answer(201, contact())]
    client_of(server, max_retries=0).contacts.create(email="ada@example.com", max_retries=1)
    assert len(server.received) == 3
    server.answers = [Answer(503, problem(503, "unavailable"))] * 10
    with pytest.raises(sendline.ServerError):
        client_of(server, max_retries=2).contacts.list(max_retries=0).first_page()
    with pytest.raises(sendline.ServerError):
        client_of(server, max_retries=2).contacts.import_csv(CSV, max_retries=0)
    assert len(server.received) == 5


# A plain date where a date-time is expected is that day at 00:00:00Z.


def test_a_plain_date_is_sent_as_midnight_utc(server):
    from datetime import date

    server.answers = [Answer(200, {"data": [], "next_cursor": None, "has_more": False}), Answer(400, problem(400, "validation_failed"))]
    client = client_of(server)
    client.contacts.list(created_after=date(2026, 1, 1)).first_page()
    assert parse_qs(urlsplit(server.received[0].path).query)["created_after"] == ["2026-01-01T00:00:00.000000Z"]
    with pytest.raises(sendline.ValidationError):
        client.campaigns.schedule("cmp_1", scheduled_at=date(2026, 12, 1))
    assert json.loads(server.received[1].body) == {"scheduled_at": "2026-12-01T00:00:00+00:00"}


def test_login_with_arguments_of_the_wrong_type_is_a_validation_error(server):
    with pytest.raises(sendline.ValidationError) as raised:
        sendline.Sendline.login(server.url, None, "pw")
    assert raised.value.status is None and [e.pointer for e in raised.value.errors] == ["/email"]
    with pytest.raises(sendline.ConfigurationError, match="must be a str"):
        sendline.Sendline(api_key=KEY.encode(), base_url=server.url)
    assert server.received == []


# Addresses of emails.send: a string or {"email", "name"}, mixed.


def sent(email: str, kind: str = "to") -> dict:
    return {"id": "em_1", "email": email, "kind": kind, "status": "queued", "reason": None}


def test_emails_send_takes_plain_and_named_addresses_mixed_and_sends_them_as_given(server):
    server.answers = [Answer(202, {"data": [sent("ada@example.com")]})]
    client_of(server).emails.send(
        from_="receipts@shop.example",
        to=["ada@example.com", {"email": "bob@example.com", "name": "Bob"}, sendline.EmailNamedAddress(email="cat@example.com")],
        cc=[{"email": "dan@example.com"}, "eve@example.com"],
        bcc=["fay@example.com"],
        subject="Receipt",
        text="Thanks!",
    )
    body = json.loads(server.received[0].body)
    assert body["from"] == "receipts@shop.example"
    assert body["to"] == ["ada@example.com", {"email": "bob@example.com", "name": "Bob"}, {"email": "cat@example.com"}]
    assert body["cc"] == [{"email": "dan@example.com"}, "eve@example.com"]
    assert body["bcc"] == ["fay@example.com"]


def test_emails_send_refuses_an_address_it_cannot_send_with_its_pointer(server):
    client = client_of(server)
    cases = [
        ({"to": [{"email": "ada@example.com", "nmae": "Ada"}]}, ["/to/0/nmae"]),
        ({"to": ["ada@example.com", {"name": "Ada"}]}, ["/to/1/email"]),
        ({"to": ["ada@example.com"], "cc": [42]}, ["/cc/0"]),
        ({"to": ["x" * 300 + "@example.com"]}, ["/to/0"]),
    ]
    for fields, pointers in cases:
        with pytest.raises(sendline.ValidationError) as raised:
            client.emails.send(from_="receipts@shop.example", subject="Hi", text="x", **fields)
        assert [e.pointer for e in raised.value.errors][:1] == pointers, fields
    assert server.received == []


# Models write themselves as JSON, date-times included.


def test_to_json_writes_date_times_as_rfc_3339_and_reads_back():
    answer = contact(status_changed_at="2026-11-24T07:30:00.000Z", attributes={"plan": "pro"})
    model = sendline.Contact.from_dict(answer)
    written = json.loads(model.to_json())
    assert written["created_at"] == "2026-11-23T06:00:00Z" and written["status_changed_at"] == "2026-11-24T07:30:00Z"
    assert written["status"] == "subscribed" and written["attributes"] == {"plan": "pro"}
    assert sendline.Contact.from_json(model.to_json()) == model


def test_a_csv_file_that_cannot_be_read_is_a_validation_error_at_file(server, tmp_path):
    for path, reason in ((tmp_path / "missing.csv", "No such file or directory"), (tmp_path, "Is a directory")):
        with pytest.raises(sendline.ValidationError) as raised:
            client_of(server).contacts.import_csv(path)
        assert (raised.value.status, raised.value.code, [e.pointer for e in raised.value.errors]) == (None, "validation_failed", ["file"])
        assert f"cannot read the CSV file {path}: {reason}" in str(raised.value)
    assert server.received == []
