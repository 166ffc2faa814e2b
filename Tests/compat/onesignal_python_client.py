"""OneSignal's official Python client (onesignal-python-api, pinned in requirements.txt) against a
running OpenPush, used exactly as OneSignal documents it. Every scenario checks what the APNs
simulator received, through its control API.

Run by Tests/OpenPushServerTests/Compatibility/OneSignalPythonClientTests.swift, which starts PostgreSQL, the
simulator and OpenPush, creates an app and passes, by environment:
  OPENPUSH_URL, OPENPUSH_APP_ID, OPENPUSH_REST_API_KEY, OPENPUSH_SDK_KEY, APNS_SIMULATOR_CONTROL_URL,
  OPENPUSH_ORGANIZATION_API_KEY.
The SDK key registers devices the way the mobile SDK does (`POST /v1/apps/{app_id}/subscriptions`);
everything else goes through the client. Exits 1 when a scenario fails, printing why.
"""

import sys
import time
import traceback
import os

import onesignal

from support import *  # noqa: F401,F403 (the shared helpers and the registry)
from support import SCENARIOS

HERE = os.path.dirname(os.path.abspath(__file__))

# MARK: scenarios, run in this order (then those of the scenario modules imported below)

@scenario
def include_subscription_ids():
    target, other = register(), register()
    body = "by subscription id " + nonce()
    answer = create(include_subscription_ids=[target.id], headings=LanguageStringMap(en="Hello"),
                    contents=LanguageStringMap(en=body), data={"order": "7"})
    check(answer.id.startswith("msg_"), f"id {answer.id!r}")
    sent = wait_sent(answer.id, 1)
    check_reached(body, [target], [other])
    push = target.pushes()[-1]["payload"]
    check(push["aps"]["alert"] == {"title": "Hello", "body": body}, f"payload {push}")
    check(push.get("order") == "7", f"data is delivered at the payload's top level: {push}")
    # The view echoes the request and carries OneSignal's times as unix seconds.
    check(sent.id == answer.id and sent.app_id == APP_ID, f"view ids: {sent.id} {sent.app_id}")
    check(sent.contents == {"en": body} and sent.headings == {"en": "Hello"}, f"texts: {sent.contents} {sent.headings}")
    check(sent.data == {"order": "7"}, f"data: {sent.data}")
    check(abs(sent.queued_at - time.time()) < 60, f"queued_at {sent.queued_at}")
    check(sent.send_after == sent.queued_at, f"send_after {sent.send_after}, queued_at {sent.queued_at}")
    check(sent.completed_at >= sent.queued_at, f"completed_at {sent.completed_at}")
    check(sent.canceled is False, f"canceled {sent.canceled}")


@scenario
def include_aliases_external_id():
    user = "user-" + nonce()
    first, second, stranger = register(external_id=user), register(external_id=user), register(external_id="other-" + nonce())
    body = "by external id " + nonce()
    answer = create(include_aliases=IncludeAliases(external_id=[user]), target_channel="push",
                    contents=LanguageStringMap(en=body))
    sent = wait_sent(answer.id, 2)
    check_reached(body, [first, second], [stranger])
    check(nested(sent, "include_aliases") == {"external_id": [user]}, f"include_aliases: {nested(sent, 'include_aliases')}")


@scenario
def built_in_segments():
    register()
    for name in ["All", "Subscribed Users"]:
        body = f"to {name} " + nonce()
        answer = create(included_segments=[name], contents=LanguageStringMap(en=body))
        sent = wait_sent(answer.id, len(DEVICES))
        check_reached(body, DEVICES, [])
        check(sent.included_segments == [name], f"included_segments: {sent.included_segments}")
        check(sent.excluded_segments == [], f"excluded_segments: {sent.excluded_segments}")


@scenario
def saved_segment_included_and_excluded():
    tier = "gold-" + nonce()
    created = API.create_segment(APP_ID, segment=Segment(
        name="Gold " + tier, filters=[Filter(field="tag", key="tier", relation="=", value=tier)]))
    check(created.success is True and created.id, f"create_segment answered {created}")
    gold, silver = register(tags={"tier": tier}), register(tags={"tier": "silver"})
    body = "gold only " + nonce()
    answer = create(included_segments=["Gold " + tier], contents=LanguageStringMap(en=body))
    wait_sent(answer.id, 1)
    check_reached(body, [gold], [silver])
    body = "all but gold " + nonce()
    answer = create(included_segments=["Subscribed Users"], excluded_segments=["Gold " + tier],
                    contents=LanguageStringMap(en=body))
    sent = wait_sent(answer.id, len(DEVICES) - 1)
    check_reached(body, [device for device in DEVICES if device is not gold], [gold])
    check(sent.excluded_segments == ["Gold " + tier], f"excluded_segments: {sent.excluded_segments}")


@scenario
def filters_with_or():
    run = nonce()
    high = register(tags={"run": run, "level": "12"})
    low = register(tags={"run": run, "level": "3"})
    vip = register(tags={"run": run, "level": "1", "vip": "yes"})
    body = "filtered " + run
    # (run = … AND level > 10) OR (run = … AND vip exists)
    answer = create(contents=LanguageStringMap(en=body), filters=[
        Filter(field="tag", key="run", relation="=", value=run), Filter(field="tag", key="level", relation=">", value="10"),
        Operator(operator="OR"),
        Filter(field="tag", key="run", relation="=", value=run), Filter(field="tag", key="vip", relation="exists"),
    ])
    wait_sent(answer.id, 2)
    check_reached(body, [high, vip], [low])


@scenario
def send_after_aware_datetime_is_honoured():
    """A timezone-aware `datetime` a few seconds ahead: nothing before it, the push after it."""
    kept, cancelled = register(), register()
    pacific = datetime.timezone(datetime.timedelta(hours=-7))
    due = datetime.datetime.now(pacific) + datetime.timedelta(seconds=3)
    body = "scheduled " + nonce()
    answer = create(include_subscription_ids=[kept.id], contents=LanguageStringMap(en=body), send_after=due)
    other = create(include_subscription_ids=[cancelled.id], contents=LanguageStringMap(en=body), send_after=due)
    waiting = view(answer.id)
    check(waiting.send_after == int(due.timestamp()), f"send_after {waiting.send_after}, expected {int(due.timestamp())}")
    check(waiting.get("completed_at") is None, f"completed_at {waiting.get('completed_at')} before it was sent")
    check(kept.pushes() == [], "delivered before its send_after")
    check(API.cancel_notification(APP_ID, other.id).success is True, "cancel answered success false")
    wait_sent(answer.id, 1)
    received = datetime.datetime.fromisoformat(kept.pushes()[-1]["received_at"].replace("Z", "+00:00"))
    check(received.timestamp() >= due.timestamp() - 0.05, f"received at {received}, before send_after {due}")
    check_reached(body, [kept], [cancelled])
    stopped = view(other.id)
    check(stopped.canceled is True and stopped.successful == 0, f"cancelled view: {stopped.to_dict()}")


@scenario
def send_after_naive_datetime_and_cancel():
    """A naive `datetime` is UTC; a cancelled message never goes out and shows `canceled`."""
    device = register()
    due = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0) + datetime.timedelta(hours=1)
    answer = create(include_subscription_ids=[device.id], contents=LanguageStringMap(en="later"), send_after=due)
    waiting = view(answer.id)
    check(waiting.send_after == calendar.timegm(due.timetuple()),
          f"send_after {waiting.send_after}, expected {calendar.timegm(due.timetuple())} (naive read as UTC)")
    check(waiting.canceled is False and waiting.get("completed_at") is None, f"scheduled view: {waiting.to_dict()}")
    check(API.cancel_notification(APP_ID, answer.id).success is True, "cancel answered success false")
    cancelled = view(answer.id)
    check(cancelled.canceled is True, f"canceled {cancelled.canceled}")
    check(cancelled.send_after == waiting.send_after, f"send_after changed to {cancelled.send_after}")
    check(device.pushes() == [], f"a cancelled message was delivered: {device.pushes()}")


@scenario
def a_template_with_liquid_and_custom_data():
    target = register()
    run = nonce()
    template = API.create_template(CreateTemplateRequest(
        app_id=APP_ID, name="order shipped " + run, headings=LanguageStringMap(en="Shipped"),
        contents=LanguageStringMap(en="Order {{ message.custom_data.order }} " + run)))
    check(template.id.startswith("tpl_"), f"template id {template.id!r}")
    listed = API.view_templates(APP_ID)
    check(any(entry.id == template.id for entry in listed.templates), f"template list: {listed.to_dict()}")
    answer = create(include_subscription_ids=[target.id], template_id=template.id, custom_data={"order": "A-7"})
    sent = wait_sent(answer.id, 1)
    body = "Order A-7 " + run
    check_reached(body, [target], [])
    check(target.pushes()[-1]["payload"]["aps"]["alert"]["title"] == "Shipped", f"payload {target.pushes()[-1]}")
    check(sent.get("template_id") == template.id, f"template_id in the view: {sent.get('template_id')}")
    API.delete_template(template.id, APP_ID)
    expect_api_error(lambda: create(include_subscription_ids=[target.id], template_id=template.id), 400, "template_id")


@scenario
def live_activity_start_and_its_view():
    """The contract's start route through the client's `start_live_activity`, read back with `get_notification`."""
    device = register()
    push_to_start = Device("c1" + uuid.uuid4().hex + uuid.uuid4().hex[:30], device.id)
    http_json("POST", f"{BASE_URL}/v1/apps/{APP_ID}/live-activities/push-to-start",
              {"token": device.token, "activity_type": "OrderActivity", "push_to_start_token": push_to_start.token},
              {"X-OP-SDK-Key": SDK_KEY})
    activity = "order-" + nonce()
    answer = API.start_live_activity(APP_ID, "OrderActivity", StartLiveActivityRequest(
        name="order placed", activity_id=activity, event_attributes={"order": "58213"},
        event_updates={"status": "placed"}, contents=LanguageStringMap(en="Placed"),
        headings=LanguageStringMap(en="Your order"), include_subscription_ids=[device.id]))
    MESSAGES.append(answer.notification_id)
    sent = wait_sent(answer.notification_id, 1)
    aps = push_to_start.pushes()[-1]["payload"]["aps"]
    check(aps.get("event") == "start" and aps.get("attributes-type") == "OrderActivity", f"aps {aps}")
    check(aps.get("content-state", {}).get("status") == "placed", f"content-state {aps.get('content-state')}")
    check(sent.contents == {"en": "Placed"}, f"contents {sent.contents}")


@scenario
def list_pages_with_limit_and_offset():
    newest_first = list(reversed(MESSAGES))
    page = API.get_notifications(APP_ID, limit=2, offset=1)
    check(page.total_count == len(MESSAGES), f"total_count {page.total_count}, expected {len(MESSAGES)}")
    check((page.limit, page.offset) == (2, 1), f"limit/offset {page.limit}/{page.offset}")
    check([item.id for item in page.notifications] == newest_first[1:3],
          f"page {[item.id for item in page.notifications]}, expected {newest_first[1:3]}")
    everything = API.get_notifications(APP_ID)
    check([item.id for item in everything.notifications] == newest_first, "the default page is not every message")
    check(all(item.app_id == APP_ID for item in everything.notifications), "a listed message of another app")


@scenario
def no_recipients():
    answer = create(include_aliases=IncludeAliases(external_id=["nobody-" + nonce()]), target_channel="push",
                    contents=LanguageStringMap(en="to nobody"))
    check(answer.id == "", f"id {answer.id!r}")
    check(answer.errors == [NO_RECIPIENTS], f"errors {answer.errors}")


@scenario
def errors_as_the_client_raises_them():
    # A field OneSignal does not have passes the client (models take extra fields) and is a 400 naming it.
    expect_api_error(lambda: API.create_notification(Notification(
        app_id=APP_ID, contents=LanguageStringMap(en="typo"), included_segments=["All"], contnets={"en": "x"})),
        400, "contnets")
    expect_api_error(lambda: client("not-the-key").create_notification(Notification(
        app_id=APP_ID, contents=LanguageStringMap(en="x"), included_segments=["All"])), 401, "bad API key")
    expect_api_error(lambda: API.create_notification(Notification(
        app_id=APP_ID, contents=LanguageStringMap(en="x"), included_segments=["No such segment"])), 400, "No such segment")
    expect_api_error(lambda: API.get_notification(APP_ID, "msg_unknown"), 404, "msg_unknown")
    expect_api_error(lambda: API.cancel_notification(APP_ID, "msg_unknown"), 404, "msg_unknown")


# Each area's scenarios register when imported, after the ones above.
import scenarios_users  # noqa: E402,F401
import scenarios_subscriptions  # noqa: E402,F401
import scenarios_exports  # noqa: E402,F401
import scenarios_reporting  # noqa: E402,F401
import scenarios_apps  # noqa: E402,F401
import scenarios_audit  # noqa: E402,F401
import scenarios_more  # noqa: E402,F401


def describe(error):
    """This script's frames and the error: the client's own frames (model_utils) only add noise."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if os.path.dirname(frame.filename) == HERE]
    return "".join(traceback.format_list(frames) + traceback.format_exception_only(error)).rstrip()


def main():
    failed = []
    for function in SCENARIOS:
        started = time.monotonic()
        try:
            function()
            print(f"ok   {function.__name__} ({time.monotonic() - started:.1f} s)")
        except Exception as error:  # every failure is reported, then the next scenario runs
            failed.append(function.__name__)
            print(f"FAIL {function.__name__}")
            print(describe(error))
        sys.stdout.flush()
    print(f"onesignal-python-api {onesignal.__version__}: {len(SCENARIOS) - len(failed)} of {len(SCENARIOS)} scenarios "
          f"passed" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
