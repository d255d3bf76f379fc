"""The shared contract scenarios (test/contract/scenarios) through the Python SDK.

Operation ids map to SDK calls by rule: ``Contacts_create`` is ``sendline.ContactsApi.create``;
``client`` steps call the idiomatic client (``contacts.create`` is ``Sendline(…).contacts.create``).
Run by test/contract/other-sdks.test.ts against a live server (SENDLINE_BASE_URL).
"""
import inspect
import json
import os
import re
import time
import typing
import uuid
from pathlib import Path

import pytest
from dateutil.parser import isoparse

import sendline
from sendline.exceptions import ApiException
from sendline.webhooks import Webhook

SCENARIOS = Path(__file__).resolve().parents[3] / "test" / "contract" / "scenarios"
BASE_URL = os.environ.get("SENDLINE_BASE_URL", "")
WEBHOOK_URL = os.environ.get("SENDLINE_WEBHOOK_URL", "")


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def interpolate(value, variables):
    if isinstance(value, str):
        whole = re.fullmatch(r"\{\{(\w+)\}\}", value)
        if whole:
            return variables.get(whole.group(1))
        return re.sub(r"\{\{(\w+)\}\}", lambda m: str(variables.get(m.group(1))), value)
    if isinstance(value, list):
        return [interpolate(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, variables) for k, v in value.items()}
    return value


def dig(value, path):
    for key in path.split("."):
        if value is None:
            return None
        value = value[int(key)] if isinstance(value, list) else value.get(key)
    return value


def mismatch(actual, expected, at="$"):
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{at}: expected an array of {len(expected)}, got {json.dumps(actual)}"
        for i, item in enumerate(expected):
            problem = mismatch(actual[i], item, f"{at}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{at}: expected an object, got {json.dumps(actual)}"
        for key, item in expected.items():
            problem = mismatch(actual.get(key), item, f"{at}.{key}")
            if problem:
                return problem
        return None
    same = actual == expected and isinstance(actual, bool) == isinstance(expected, bool)
    return None if same else f"{at}: expected {json.dumps(expected)}, got {json.dumps(actual)}"


def type_of(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def plain(value):
    """An SDK value as JSON data: models by their fields (to_dict would leave out read-only ones
    such as `id`), one-of wrappers (the Event union) by the instance they hold."""
    if hasattr(value, "actual_instance"):
        return plain(value.actual_instance)
    if isinstance(getattr(type(value), "model_fields", None), dict):
        return {field.alias or name: plain(getattr(value, name)) for name, field in type(value).model_fields.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "value") and not isinstance(value, (str, int, float, bool)):
        return value.value
    return value


def model_class(annotation):
    """The SDK model behind a parameter annotation (through Optional and Annotated), or None."""
    if hasattr(annotation, "from_dict"):
        return annotation
    for arg in typing.get_args(annotation):
        found = model_class(arg)
        if found:
            return found
    return None


def native(value):
    """Scenario arguments as the client takes them: `{"$date": "…"}` is a datetime."""
    if isinstance(value, dict):
        if set(value) == {"$date"}:
            return isoparse(value["$date"])
        return {k: native(v) for k, v in value.items()}
    if isinstance(value, list):
        return [native(v) for v in value]
    return value


class Runner:
    def __init__(self):
        self.authenticate(None)

    def authenticate(self, auth):
        credential = auth and (auth.get("api_key") or auth.get("bearer"))
        self.sdk = sendline.Sendline(api_key=credential, base_url=BASE_URL) if credential else None
        configuration = sendline.Configuration(host=BASE_URL)
        # The scenarios want to see a 429, not urllib3 waiting out Retry-After.
        configuration.retries = 0
        if auth and auth.get("bearer"):
            configuration.access_token = auth["bearer"]
        if auth and auth.get("api_key"):
            configuration.api_key["ApiKeyAuth"] = auth["api_key"]
        self.client = sendline.ApiClient(configuration)

    def call(self, op, path, query, body):
        resource, method = op.split("_", 1)
        api = getattr(sendline, f"{resource}Api")(self.client)
        function = getattr(api, f"{snake(method)}_with_http_info")
        given = {**(path or {}), **(query or {})}
        kwargs = {}
        for name, parameter in inspect.signature(function).parameters.items():
            if name.startswith("_"):
                continue
            if name in given:
                kwargs[name] = given[name]
            elif body is not None and model_class(parameter.annotation):
                kwargs[name] = model_class(parameter.annotation).from_dict(body)
        try:
            response = function(**kwargs)
        except ApiException as error:
            return error.status, json.loads(error.body) if error.body else None
        data = response.data
        if data is None or isinstance(data, str):
            return response.status_code, data
        return response.status_code, plain(data)


    def client_call(self, step, variables):
        """A `client` step: the idiomatic client's method, `id` (or an import's `csv`) positional."""
        resource, method = step["client"].split(".")
        kwargs = native(interpolate(step.get("args", {}), variables))
        args = [kwargs.pop(name) for name in ("id", "csv") if name in kwargs]
        if "path" in kwargs:
            args.append(Path(kwargs.pop("path")))
        if "from" in kwargs:
            kwargs["from_"] = kwargs.pop("from")  # a keyword Python reserves, spelled as the client takes it
        if "idempotency_key" in step:
            kwargs["idempotency_key"] = interpolate(step["idempotency_key"], variables)
        result = getattr(getattr(self.sdk, resource), method)(*args, **kwargs)
        if step.get("collect"):
            return [plain(item)[step["collect"]] for item in result]
        if step.get("wait"):
            return plain(self.sdk.contact_imports.wait(result.id, timeout=20, interval=0.1))
        return plain(result)


def webhook_step(webhook):
    """Signs the event as Sendline does, then verifies it as a receiver would: the body as bytes,
    the headers capitalised as a WSGI framework hands them over."""
    verifier = Webhook(webhook["secret"])
    body = json.dumps(webhook["event"], ensure_ascii=False).encode("utf-8")
    timestamp = int(time.time())
    headers = {
        "Webhook-Id": webhook["event"]["id"],
        "Webhook-Timestamp": str(timestamp),
        "Webhook-Signature": verifier.sign(webhook["event"]["id"], timestamp, body),
    }
    if webhook.get("tamper"):
        body = body.replace(b"}", b" }", 1)
    return plain(verifier.verify(body, headers))


def check_error(where, error, expected):
    assert isinstance(error, getattr(sendline, expected["class"])), f"{where}: {type(error).__name__}: {error}"
    for name in ("status", "code", "existing_id"):
        if name in expected:
            assert getattr(error, name) == expected[name], f"{where}: {name} is {getattr(error, name)!r}, not {expected[name]!r}"
    if "pointer" in expected:
        assert expected["pointer"] in [e.pointer for e in error.errors], f"{where}: {error.errors}"


def check_body(where, step, body, variables):
    if "expect" in step:
        problem = mismatch(body, interpolate(step["expect"], variables))
        assert problem is None, f"{where}: {problem}"
    for name, path in step.get("capture", {}).items():
        variables[name] = dig(body, path)


def run_client_step(runner, where, step, variables):
    try:
        body = webhook_step(interpolate(step["webhook"], variables)) if "webhook" in step else runner.client_call(step, variables)
    except sendline.SendlineError as error:
        assert "error" in step, f"{where}: {type(error).__name__}: {error}"
        check_error(where, error, interpolate(step["error"], variables))
        return
    assert "error" not in step, f"{where}: no {step['error']['class']}, but {body}"
    check_body(where, step, body, variables)


def scenarios():
    return sorted(SCENARIOS.glob("*.json"))


@pytest.mark.parametrize("file", scenarios(), ids=lambda p: p.name)
def test_scenario(file):
    scenario = json.loads(file.read_text())
    variables = {"unique": uuid.uuid4().hex[:8], "webhook_url": WEBHOOK_URL}
    runner = Runner()
    for index, step in enumerate(scenario["steps"], start=1):
        where = f"{file.name} step {index} ({step.get('op', 'auth')})"
        if "auth" in step:
            runner.authenticate(interpolate(step["auth"], variables))
            continue
        if "client" in step or "webhook" in step:
            run_client_step(runner, f"{file.name} step {index} ({step.get('client', 'webhook')})", step, variables)
            continue
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            status, body = runner.call(step["op"], interpolate(step.get("path"), variables), interpolate(step.get("query"), variables), interpolate(step.get("body"), variables))
            if status != step["status"] and attempts < step.get("attempts", 1):
                continue
            if "until" not in step or not mismatch(body, interpolate(step["until"], variables)):
                break
            assert time.monotonic() - started < 20, f"{where}: never reached {step['until']}: {body}"
            time.sleep(0.1)
        assert status == step["status"], f"{where}: status {status}: {body}"
        if "problem" in step:
            assert mismatch(body, interpolate(step["problem"], variables)) is None, f"{where}: {mismatch(body, interpolate(step['problem'], variables))}"
            assert isinstance(body.get("title"), str), where
        if "contains" in step:
            assert step["contains"] in str(body), where
        for path, wanted in step.get("types", {}).items():
            actual = type_of(dig(body, path))
            assert actual == wanted or (wanted == "number" and actual == "integer"), f"{where}: {path} is {actual}, not {wanted}"
        check_body(where, step, body, variables)
