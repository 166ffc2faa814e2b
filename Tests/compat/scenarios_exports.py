"""OneSignal's client against OpenPush, exports: export_subscriptions, get_notification_history, export_events."""

import csv
import gzip
import io

from onesignal.model.export_subscriptions_request_body import ExportSubscriptionsRequestBody
from onesignal.model.get_notification_history_request_body import GetNotificationHistoryRequestBody

from support import *  # noqa: F401,F403


def download_csv(url, key=REST_API_KEY):
    """The export's file, fetched from OpenPush with the app's REST key as OneSignal's docs say to
    poll it (404 until ready), un-gzipped and read as CSV rows keyed by the header's columns."""
    check(url.startswith(BASE_URL + "/apps/" + APP_ID + "/exports/"), f"the file is on OpenPush's own origin: {url}")

    def fetch():
        request = urllib.request.Request(url, headers={"Authorization": "Key " + key})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                check(response.headers.get("Content-Type") == "application/gzip", f"content type {response.headers}")
                return response.read()
        except urllib.error.HTTPError as error:
            check(error.code == 404, f"{url} answered {error.code}: {error.read().decode()}")
            return None

    body = wait_until(f"export {url} to be ready", fetch)
    return list(csv.DictReader(io.StringIO(gzip.decompress(body).decode("utf-8"), newline="")))


def status_of(url, key):
    request = urllib.request.Request(url, headers={"Authorization": "Key " + key} if key else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@scenario
def export_subscriptions_csv():
    user = "export-" + nonce()
    tagged = register(external_id=user, tags={"plan": "gold"})
    answer = API.export_subscriptions(APP_ID, export_subscriptions_request_body=ExportSubscriptionsRequestBody(
        extra_fields=["country", "notification_types", "location"]))
    rows = download_csv(answer.csv_file_url)
    by_id = {row["id"]: row for row in rows}
    # Every device registered so far is in the file, with the token OpenPush holds for it.
    for device in DEVICES:
        check(device.id in by_id, f"device {device.id} is missing from the export")
        check(by_id[device.id]["identifier"] == device.token, f"identifier of {device.id}: {by_id[device.id]}")
    row = by_id[tagged.id]
    check(list(row)[:11] == ["id", "identifier", "external_user_id", "device_type", "language", "timezone", "session_count",
                             "created_at", "last_active", "invalid_identifier", "tags"], f"columns {list(row)}")
    check("location" not in row and row["country"] == "" and row["notification_types"] == "1", f"extra fields: {row}")
    check((row["external_user_id"], row["device_type"], row["invalid_identifier"]) == (user, "0", "f"), f"row {row}")
    check(json.loads(row["tags"]) == {"plan": "gold"}, f"tags {row['tags']}")
    # A segment and an activity window narrow it down; an unknown segment is the client's 400.
    since = str(int(time.time()) - 3600)
    recent = download_csv(API.export_subscriptions(APP_ID, export_subscriptions_request_body=ExportSubscriptionsRequestBody(
        last_active_since=since, segment_name="Active Users")).csv_file_url)
    check(tagged.id in {row["id"] for row in recent}, "the active device is in the segment's export")
    expect_api_error(lambda: API.export_subscriptions(APP_ID, export_subscriptions_request_body=ExportSubscriptionsRequestBody(
        segment_name="No such segment " + nonce())), 400, "not found")
    # The file takes the app's REST key: none, or another key, is 401.
    check(status_of(answer.csv_file_url, None) == 401, "the file without a key is 401")
    check(status_of(answer.csv_file_url, "not-the-key") == 401, "the file with a wrong key is 401")


@scenario
def notification_history_and_events():
    tapper, other = register(external_id="history-" + nonce()), register()
    body = "history " + nonce()
    answer = create(include_subscription_ids=[tapper.id, other.id], contents=LanguageStringMap(en=body))
    wait_sent(answer.id, 2)
    check_reached(body, [tapper, other], [])
    http_json("POST", f"{BASE_URL}/v1/apps/{APP_ID}/notifications/{answer.id}/opened", {"token": tapper.token},
              {"X-OP-SDK-Key": SDK_KEY})

    sent = API.get_notification_history(answer.id, GetNotificationHistoryRequestBody(events="sent", app_id=APP_ID,
                                                                                       email="ops@example.com"))
    check(sent.success is True, f"history answered {sent}")
    rows = download_csv(sent.destination_url)
    check({row["player_id"] for row in rows} == {tapper.id, other.id}, f"sent rows {rows}")
    check(all(row["state"] == "accepted" for row in rows), f"states {rows}")
    check({row["player_id"]: row["external_user_id"] for row in rows}[tapper.id].startswith("history-"), f"{rows}")

    clicked = API.get_notification_history(answer.id, GetNotificationHistoryRequestBody(events="clicked", app_id=APP_ID))
    rows = download_csv(clicked.destination_url)
    check([row["player_id"] for row in rows] == [tapper.id], f"clicked rows {rows}")

    events = API.export_events(answer.id, APP_ID)
    rows = download_csv(events.csv_file_url)
    check(sorted((row["event"], row["player_id"]) for row in rows)
          == sorted([("sent", tapper.id), ("sent", other.id), ("clicked", tapper.id)]), f"event rows {rows}")
    # The message's figures say the same.
    check(view(answer.id).successful == 2, "get_notification agrees on two sent")
    expect_api_error(lambda: API.get_notification_history("msg_unknown", GetNotificationHistoryRequestBody(
        events="sent", app_id=APP_ID)), 404, "not found")
