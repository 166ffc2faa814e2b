"""OneSignal's client against OpenPush, users and identity: update_user, get_user, get_aliases, aliases by subscription."""

from support import *  # noqa: F401,F403

from onesignal.model.filter import Filter
from onesignal.model.identity_object import IdentityObject
from onesignal.model.language_string_map import LanguageStringMap
from onesignal.model.properties_deltas import PropertiesDeltas
from onesignal.model.properties_object import PropertiesObject
from onesignal.model.purchase import Purchase
from onesignal.model.update_user_request import UpdateUserRequest
from onesignal.model.user import User
from onesignal.model.user_identity_body import UserIdentityBody


def rest_get(path):
    """OpenPush's own view of an object, with the REST key (not through OneSignal's client)."""
    return http_json("GET", BASE_URL + path, headers={"Authorization": "Key " + REST_API_KEY})


def identity_of(answer):
    return answer.identity.to_dict()


@scenario
def users_create_get_and_update():
    external_id = "user-" + nonce()
    device = register(external_id=external_id)
    created = API.create_user(APP_ID, User(identity=IdentityObject(external_id=external_id),
                                           properties=PropertiesObject(tags={"plan": "free", "gone": "x"}, language="en")))
    user_id = identity_of(created)["onesignal_id"]
    check(identity_of(created) == {"external_id": external_id, "onesignal_id": user_id, "openpush_id": user_id},
          f"create_user identity: {identity_of(created)}")

    updated = API.update_user(APP_ID, "external_id", external_id, UpdateUserRequest(
        properties=PropertiesObject(tags={"plan": "pro", "gone": ""}, language="de", timezone_id="Europe/Berlin",
                                    lat=52.52, long=13.4, country="DE", first_active=1700000000, last_active=1700000600),
        deltas=PropertiesDeltas(session_count=2, session_time=120,
                                purchases=[Purchase(sku="coins", amount="4.99", iso="USD", count=2)])))
    properties = updated.properties
    check(properties.tags == {"plan": "pro"}, f"update_user tags: {properties.tags}")
    check((properties.language, properties.timezone_id, properties.country) == ("de", "Europe/Berlin", "DE"),
          f"update_user properties: {properties.to_dict()}")
    check((properties.lat, properties.long) == (52.52, 13.4), f"lat/long: {properties.lat} {properties.long}")
    check((properties.first_active, properties.last_active) == (1700000000, 1700000600), f"times: {properties.to_dict()}")
    check(abs(properties.amount_spent - 9.98) < 1e-9, f"amount_spent {properties.amount_spent}")

    # Deltas add to what is stored.
    API.update_user(APP_ID, "onesignal_id", user_id, UpdateUserRequest(deltas=PropertiesDeltas(
        session_count=1, session_time=30, purchases=[Purchase(sku="gem", amount="1.00", iso="EUR")])))
    user = API.get_user(APP_ID, "external_id", external_id)
    shown = user.properties
    check(shown.tags == {"plan": "pro"} and shown.language == "de", f"get_user properties: {shown.to_dict()}")
    check(abs(shown.amount_spent - 10.98) < 1e-9, f"amount_spent after a second purchase: {shown.amount_spent}")
    check([(p.sku, p.amount, p.iso, p.count) for p in shown.purchases] == [("coins", "4.99", "USD", 2), ("gem", "1.00", "EUR", 1)],
          f"purchases: {shown.purchases}")
    check((shown["session_count"], shown["session_time"]) == (3, 150), f"deltas: {shown.to_dict()}")
    check([s.id for s in user.subscriptions] == [device.id], f"get_user subscriptions: {user.subscriptions}")
    subscription = user.subscriptions[0]
    check((subscription.type, subscription.token, subscription.enabled, subscription.notification_types)
          == ("iOSPush", device.token, True, 1), f"subscription: {subscription.to_dict()}")
    # OpenPush's state agrees: the user's tags reached its device, which targeting reads.
    check(rest_get(f"/apps/{APP_ID}/subscriptions/{device.id}")["tags"] == {"plan": "pro"}, "the device's tags")


@scenario
def update_user_tags_target_the_users_devices():
    external_id = "user-" + nonce()
    run = nonce()
    phone, tablet = register(external_id=external_id), register(external_id=external_id)
    stranger = register(external_id="other-" + nonce())
    API.update_user(APP_ID, "external_id", external_id,
                    UpdateUserRequest(properties=PropertiesObject(tags={"cohort": run})))
    body = "by a user's tag " + nonce()
    answer = create(filters=[Filter(field="tag", key="cohort", relation="=", value=run)], contents=LanguageStringMap(en=body))
    wait_sent(answer.id, 2)
    check_reached(body, [phone, tablet], [stranger])

    # A tag removed with "" no longer targets them.
    API.update_user(APP_ID, "external_id", external_id, UpdateUserRequest(properties=PropertiesObject(tags={"cohort": ""})))
    check(API.get_user(APP_ID, "external_id", external_id).properties.tags == {}, "the removed tag")
    for device in (phone, tablet):
        check("cohort" not in rest_get(f"/apps/{APP_ID}/subscriptions/{device.id}")["tags"], "the tag left the devices")


@scenario
def a_device_registered_after_the_users_tags_is_targeted_by_them():
    external_id = "user-" + nonce()
    run = nonce()
    API.create_user(APP_ID, User(identity=IdentityObject(external_id=external_id),
                                 properties=PropertiesObject(tags={"cohort": run})))
    phone = register(external_id=external_id)
    stranger = register(external_id="other-" + nonce())
    body = "to a user's tag, device registered later " + nonce()
    answer = create(filters=[Filter(field="tag", key="cohort", relation="=", value=run)], contents=LanguageStringMap(en=body))
    wait_sent(answer.id, 1)
    check_reached(body, [phone], [stranger])


@scenario
def update_user_bounds():
    external_id = "user-" + nonce()
    API.create_user(APP_ID, User(identity=IdentityObject(external_id=external_id)))
    expect_api_error(lambda: API.update_user(APP_ID, "external_id", external_id, UpdateUserRequest(
        properties=PropertiesObject(lat=123.0))), 400, "properties.lat must be a number from -90 to 90")
    expect_api_error(lambda: API.update_user(APP_ID, "external_id", external_id, UpdateUserRequest(
        deltas=PropertiesDeltas(purchases=[Purchase(sku="a", amount="lots", iso="USD")]))), 400,
        "deltas.purchases[0].amount must be a decimal string")
    expect_api_error(lambda: API.update_user(APP_ID, "external_id", "nobody-" + nonce(), UpdateUserRequest(
        properties=PropertiesObject(language="en"))), 404, "user not found")
    check(API.get_user(APP_ID, "external_id", external_id).properties.to_dict() == {"tags": {}}, "nothing stored")


@scenario
def aliases_by_user():
    external_id = "user-" + nonce()
    crm = "crm-" + nonce()
    created = API.create_user(APP_ID, User(identity=IdentityObject(external_id=external_id)))
    user_id = identity_of(created)["onesignal_id"]
    added = API.create_alias(APP_ID, "external_id", external_id, UserIdentityBody(identity=IdentityObject(crm=crm)))
    check(identity_of(added) == {"external_id": external_id, "crm": crm, "onesignal_id": user_id, "openpush_id": user_id},
          f"create_alias: {identity_of(added)}")
    check(identity_of(API.get_aliases(APP_ID, "crm", crm)) == identity_of(added), "get_aliases by the new alias")
    removed = API.delete_alias(APP_ID, "onesignal_id", user_id, "crm")
    check("crm" not in identity_of(removed), f"delete_alias: {identity_of(removed)}")
    expect_api_error(lambda: API.get_aliases(APP_ID, "crm", crm), 404, "user not found")
    check(identity_of(API.get_aliases(APP_ID, "external_id", external_id)) == identity_of(removed), "get_aliases after")


@scenario
def aliases_by_subscription():
    external_id = "user-" + nonce()
    linked = register(external_id=external_id)
    shown = identity_of(API.get_aliases_by_subscription(APP_ID, linked.id))
    check(shown["external_id"] == external_id, f"get_aliases_by_subscription: {shown}")
    crm = "crm-" + nonce()
    added = identity_of(API.create_alias_by_subscription(APP_ID, linked.id, UserIdentityBody(identity=IdentityObject(crm=crm))))
    check(added == dict(shown, crm=crm), f"create_alias_by_subscription: {added}")
    check([s.id for s in API.get_user(APP_ID, "crm", crm).subscriptions] == [linked.id], "the user by its new alias")

    # A device without a user gets one named by the external_id sent, and carries it.
    lone = register()
    expect_api_error(lambda: API.get_aliases_by_subscription(APP_ID, lone.id), 404, "has no user")
    new_external_id = "user-" + nonce()
    made = identity_of(API.create_alias_by_subscription(
        APP_ID, lone.id, UserIdentityBody(identity=IdentityObject(external_id=new_external_id))))
    check(made["external_id"] == new_external_id and made["onesignal_id"].startswith("usr_"), f"made: {made}")
    check(rest_get(f"/apps/{APP_ID}/subscriptions/{lone.id}")["external_id"] == new_external_id, "the device's external_id")
    check([s.id for s in API.get_user(APP_ID, "external_id", new_external_id).subscriptions] == [lone.id], "the new user's device")


@scenario
def delete_user_unlinks_devices():
    external_id = "user-" + nonce()
    device = register(external_id=external_id)
    API.create_alias(APP_ID, "external_id", external_id, UserIdentityBody(identity=IdentityObject(crm="crm-" + nonce())))
    check(API.delete_user(APP_ID, "external_id", external_id) is None, "delete_user answers nothing the client parses")
    expect_api_error(lambda: API.get_user(APP_ID, "external_id", external_id), 404, "user not found")
    view = rest_get(f"/apps/{APP_ID}/subscriptions/{device.id}")
    check(view["external_id"] is None and view["retired"] is False, f"the device stays, unlinked: {view}")
