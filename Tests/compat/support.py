"""What every scenario module of the compatibility suite shares: OneSignal's client configured for
the running OpenPush, devices registered through the SDK route, the simulator's control API, checks,
and the scenario registry. `onesignal_python_client.py` runs the scenarios in the order they
register: its own first, then each `scenarios_*.py` module it imports.
"""


import calendar
import datetime
import json
import os
import sys
import time
import traceback
import urllib.error
import urllib.request
import uuid

import onesignal
from onesignal.api import default_api
from onesignal.model.filter import Filter
from onesignal.model.include_aliases import IncludeAliases
from onesignal.model.language_string_map import LanguageStringMap
from onesignal.model.notification import Notification
from onesignal.model.operator import Operator
from onesignal.model.segment import Segment
from onesignal.model.start_live_activity_request import StartLiveActivityRequest
from onesignal.model.create_template_request import CreateTemplateRequest

BASE_URL = os.environ["OPENPUSH_URL"]
APP_ID = os.environ["OPENPUSH_APP_ID"]
REST_API_KEY = os.environ["OPENPUSH_REST_API_KEY"]
SDK_KEY = os.environ["OPENPUSH_SDK_KEY"]
CONTROL_URL = os.environ["APNS_SIMULATOR_CONTROL_URL"]
# The organization key of the served OpenPush, for the /apps, API key and audit log methods.
ORGANIZATION_API_KEY = os.environ["OPENPUSH_ORGANIZATION_API_KEY"]
NO_RECIPIENTS = "All included players are not subscribed"
# Long enough for a loaded machine; a passing run waits far less.
DELIVERY_TIMEOUT = 20.0


def client(rest_api_key=REST_API_KEY, organization_api_key=ORGANIZATION_API_KEY):
    """What OneSignal's README shows, with OpenPush as the host."""
    configuration = onesignal.Configuration(host=BASE_URL, rest_api_key=rest_api_key,
                                            organization_api_key=organization_api_key)
    return default_api.DefaultApi(onesignal.ApiClient(configuration))


API = client()
# Every device registered so far (the built-in segments reach all of them) and every message
# created so far, oldest first (what the list pages through).
DEVICES = []
MESSAGES = []


class Device:
    def __init__(self, token, subscription_id):
        self.token = token
        self.id = subscription_id

    def pushes(self):
        """The payloads the simulator accepted for this device, oldest first."""
        answer = http_json("GET", CONTROL_URL + "/pushes?token=" + self.token)
        return answer["pushes"]

    def bodies(self):
        return [push["payload"].get("aps", {}).get("alert", {}).get("body") for push in self.pushes()]


def http_json(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {url} answered {error.code}: {error.read().decode()}") from None


def register(external_id=None, tags=None):
    """A device registering through the SDK route, with a fresh token the simulator accepts."""
    token = "c0" + uuid.uuid4().hex + uuid.uuid4().hex[:30]
    body = {"token": token}
    if external_id is not None:
        body["external_id"] = external_id
    if tags is not None:
        body["tags"] = tags
    answer = http_json("POST", f"{BASE_URL}/v1/apps/{APP_ID}/subscriptions", body, {"X-OP-SDK-Key": SDK_KEY})
    device = Device(token, answer["id"])
    DEVICES.append(device)
    return device


def nonce():
    return uuid.uuid4().hex[:10]


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def nested(notification, name):
    """A field of a `NotificationWithMeta` whose type is a model of its own (`platform_delivery_stats`,
    `include_aliases`), through `to_dict()`: the client cannot read these as attributes of any
    answer, OneSignal's included (its composed model stores the value once as a model and once as
    a dict, then refuses the pair as different)."""
    return notification.to_dict().get(name)


def create(**fields):
    """`create_notification` with this app; returns the answer, recording the message."""
    answer = API.create_notification(Notification(app_id=APP_ID, **fields))
    if answer.id:
        MESSAGES.append(answer.id)
    return answer


def wait_until(what, predicate, timeout=DELIVERY_TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def view(notification_id):
    return API.get_notification(APP_ID, notification_id)


def wait_sent(notification_id, successful):
    """Polls `get_notification` until the message is complete; checks its figures."""
    def complete():
        current = view(notification_id)
        return current if current.remaining == 0 and current.get("completed_at") is not None else None
    current = wait_until(f"notification {notification_id} to complete", complete)
    check(current.successful == successful,
          f"successful is {current.successful}, expected {successful}: {current.to_dict()}")
    check((current.failed, current.errored) == (0, 0), f"failed/errored: {current.to_dict()}")
    ios = nested(current, "platform_delivery_stats")["ios"]
    check(ios == {"successful": successful, "failed": 0, "errored": 0, "converted": 0}, f"platform_delivery_stats.ios: {ios}")
    return current


def check_reached(body, reached, missed):
    """Each device of `reached` received exactly one push with `body`, none of `missed` did."""
    for device in reached:
        got = device.bodies().count(body)
        check(got == 1, f"device {device.id} received {got} pushes with body {body!r}: {device.bodies()}")
    for device in missed:
        check(body not in device.bodies(), f"device {device.id} received {body!r} but was not targeted")


def expect_api_error(call, status, fragment):
    """The client raises its ApiException with the status and OpenPush's `errors`."""
    try:
        call()
    except onesignal.ApiException as error:
        check(error.status == status, f"status {error.status}, expected {status}: {error.body}")
        messages = error.error_messages
        check(any(fragment in message for message in messages),
              f"no error mentioning {fragment!r} in {messages} (body {error.body})")
        return messages
    raise AssertionError(f"expected the client to raise ApiException {status}")



# MARK: the scenario registry

SCENARIOS = []


def scenario(function):
    SCENARIOS.append(function)
    return function
