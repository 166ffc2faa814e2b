"""OneSignal's client against OpenPush: the methods the notification scenarios leave out —
update_live_activity (update, then end), update_template, delete_segment."""

from onesignal.model.update_live_activity_request import UpdateLiveActivityRequest
from onesignal.model.update_template_request import UpdateTemplateRequest

from support import *  # noqa: F401,F403


@scenario
def update_live_activity_updates_then_ends():
    """A device's running activity (registered by the SDK route) updated, then ended, through the client."""
    device = register()
    activity = "delivery-" + nonce()
    update_token = Device("c2" + uuid.uuid4().hex + uuid.uuid4().hex[:30], device.id)
    http_json("POST", f"{BASE_URL}/v1/apps/{APP_ID}/live-activities",
              {"token": device.token, "activity_id": activity, "activity_type": "DeliveryActivity",
               "update_token": update_token.token},
              {"X-OP-SDK-Key": SDK_KEY})
    answer = API.update_live_activity(APP_ID, activity, UpdateLiveActivityRequest(
        name="driver nearby", event="update", event_updates={"eta": "5 min"},
        contents=LanguageStringMap(en="Nearly there"), headings=LanguageStringMap(en="Your delivery")))
    check(answer.id.startswith("msg_"), f"update answered {answer}")
    MESSAGES.append(answer.id)
    wait_until("the update push", lambda: len(update_token.pushes()) == 1)
    aps = update_token.pushes()[-1]["payload"]["aps"]
    state = aps.get("content-state", {})
    check(aps.get("event") == "update" and state.get("eta") == "5 min", f"aps {aps}")
    check(state.get("openpush", {}).get("notification_id") == answer.id, f"the push names its message: {state}")
    check(aps.get("alert", {}).get("body") == "Nearly there", f"alert {aps.get('alert')}")
    ended = API.update_live_activity(APP_ID, activity, UpdateLiveActivityRequest(
        name="delivered", event="end", event_updates={"eta": "now"}, dismissal_date=int(time.time()) + 60))
    MESSAGES.append(ended.id)
    wait_until("the end push", lambda: len(update_token.pushes()) == 2)
    aps = update_token.pushes()[-1]["payload"]["aps"]
    check(aps.get("event") == "end" and aps.get("content-state", {}).get("eta") == "now", f"aps {aps}")
    check(isinstance(aps.get("dismissal-date"), int), f"dismissal-date {aps.get('dismissal-date')}")


@scenario
def update_template_changes_what_a_send_renders():
    target = register()
    run = nonce()
    template = API.create_template(CreateTemplateRequest(
        app_id=APP_ID, name="before " + run, contents=LanguageStringMap(en="old text " + run)))
    updated = API.update_template(template.id, APP_ID, UpdateTemplateRequest(
        name="after " + run, contents=LanguageStringMap(en="new text " + run), headings=LanguageStringMap(en="Updated")))
    check(updated.id == template.id and updated.name == "after " + run, f"update_template answered {updated}")
    viewed = API.view_template(template.id, APP_ID)
    check(viewed.name == "after " + run, f"view_template after the update: {viewed}")
    answer = create(include_subscription_ids=[target.id], template_id=template.id)
    wait_sent(answer.id, 1)
    check_reached("new text " + run, [target], [])
    check(target.pushes()[-1]["payload"]["aps"]["alert"]["title"] == "Updated", f"payload {target.pushes()[-1]}")
    API.delete_template(template.id, APP_ID)


@scenario
def delete_segment_then_a_send_naming_it_is_refused():
    name = "Doomed " + nonce()
    created = API.create_segment(APP_ID, segment=Segment(
        name=name, filters=[Filter(field="tag", key="doomed", relation="exists")]))
    deleted = API.delete_segment(APP_ID, created.id)
    check(deleted.success is True, f"delete_segment answered {deleted}")
    listed = API.get_segments(APP_ID)
    check(all(entry.id != created.id for entry in listed.segments), f"the list still holds it: {listed.to_dict()}")
    expect_api_error(lambda: create(included_segments=[name], contents=LanguageStringMap(en="nobody")), 400, name)
    expect_api_error(lambda: API.delete_segment(APP_ID, created.id), 404, "segment")
