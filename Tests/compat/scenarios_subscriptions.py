"""OneSignal's client against OpenPush, subscriptions: create, update, transfer, by token, delete, notification_types."""

from support import *  # noqa: F401,F403

from onesignal.model.subscription import Subscription
from onesignal.model.subscription_body import SubscriptionBody
from onesignal.model.transfer_subscription_request_body import TransferSubscriptionRequestBody

REST_HEADERS = {"Authorization": "Key " + REST_API_KEY}


def fresh_token():
    """A device token the simulator accepts, as `register()` makes them."""
    return "c0" + uuid.uuid4().hex + uuid.uuid4().hex[:30]


def new_user(external_id):
    """A user with this external_id, made outside the methods under test."""
    http_json("POST", f"{BASE_URL}/apps/{APP_ID}/users", {"identity": {"external_id": external_id}}, REST_HEADERS)


def stored(subscription_id):
    """The device as OpenPush stores it (its REST view)."""
    return http_json("GET", f"{BASE_URL}/apps/{APP_ID}/subscriptions/{subscription_id}", headers=REST_HEADERS)


def user_devices(external_id):
    answer = http_json("GET", f"{BASE_URL}/apps/{APP_ID}/users/by/external_id/{external_id}", headers=REST_HEADERS)
    return [subscription["id"] for subscription in answer["subscriptions"]]


def apple(token, **fields):
    return SubscriptionBody(subscription=Subscription(type="iOSPush", token=token, **fields))


def send_to(device, body):
    return create(include_subscription_ids=[device.id], contents=LanguageStringMap(en=body))


def check_not_sent(device):
    body = "not while unsubscribed " + nonce()
    answer = send_to(device, body)
    check(answer.id == "" and answer.errors == [NO_RECIPIENTS], f"a send to an unsubscribed device answered {answer}")
    check(body not in device.bodies(), f"device {device.id} received {body!r} while unsubscribed")


def check_sent(device):
    body = "subscribed " + nonce()
    answer = send_to(device, body)
    wait_sent(answer.id, 1)
    check_reached(body, [device], [])


@scenario
def create_subscription_then_the_same_token_moves_keeping_its_id():
    first, second = "sub-a-" + nonce(), "sub-b-" + nonce()
    new_user(first)
    new_user(second)
    token = fresh_token()
    answer, status, _ = API.create_subscription(
        APP_ID, "external_id", first,
        apple(token, enabled=True, notification_types=1, device_model="iPhone16,1", app_version="4.2", sdk="050210"),
        _return_http_data_only=False)
    created = answer.subscription
    check(status == 201, f"status {status}")
    check(created.id.startswith("sub_") and created.type == "iOSPush" and created.token == token, f"subscription {created}")
    check(created.enabled is True and created.notification_types == 1, f"subscription {created}")
    check(created.device_model == "iPhone16,1" and created.app_version == "4.2" and created.sdk == "050210",
          f"subscription {created}")
    row = stored(created.id)
    check(row["external_id"] == first and row["enabled"] and not row["retired"], f"stored {row}")
    check(user_devices(first) == [created.id], f"{first}'s devices: {user_devices(first)}")
    device = Device(token, created.id)
    DEVICES.append(device)
    check_sent(device)

    moved, status, _ = API.create_subscription(APP_ID, "external_id", second, apple(token), _return_http_data_only=False)
    check(status == 200, f"status {status}")
    check(moved.subscription.id == created.id, f"the moved token got id {moved.subscription.id}, had {created.id}")
    check(stored(created.id)["external_id"] == second, f"stored {stored(created.id)}")
    check(user_devices(first) == [] and user_devices(second) == [created.id],
          f"devices: {first} {user_devices(first)}, {second} {user_devices(second)}")


@scenario
def notification_types_unsubscribes_and_resubscribes():
    user = "sub-nt-" + nonce()
    new_user(user)
    token = fresh_token()
    created = API.create_subscription(APP_ID, "external_id", user, apple(token, notification_types=-2)).subscription
    check(created.enabled is False and created.notification_types == -2, f"subscription {created}")
    check(stored(created.id)["enabled"] is False, f"stored {stored(created.id)}")
    device = Device(token, created.id)
    check_not_sent(device)

    answer = API.update_subscription(APP_ID, device.id, SubscriptionBody(subscription=Subscription(notification_types=1)))
    check(answer is None, f"update_subscription answered {answer!r}")
    row = stored(device.id)
    check(row["enabled"] is True and row["notification_types"] == 1, f"stored {row}")
    DEVICES.append(device)
    check_sent(device)

    # OneSignal's other reasons for not subscribed count as unsubscribed, enabled agrees, and the
    # reason reads back as sent, on get_user too.
    DEVICES.remove(device)
    API.update_subscription(APP_ID, device.id, SubscriptionBody(subscription=Subscription(notification_types=-31)))
    row = stored(device.id)
    check(row["enabled"] is False and row["notification_types"] == -31, f"stored {row}")
    shown = [s for s in API.get_user(APP_ID, "external_id", user).subscriptions if s.id == device.id]
    check(len(shown) == 1 and shown[0].notification_types == -31, f"get_user shows {shown}")
    check_not_sent(device)
    API.update_subscription(APP_ID, device.id, SubscriptionBody(subscription=Subscription(enabled=True)))
    DEVICES.append(device)
    check(stored(device.id)["notification_types"] == 1, f"stored {stored(device.id)}")
    expect_api_error(lambda: API.update_subscription(APP_ID, device.id, SubscriptionBody(
        subscription=Subscription(enabled=True, notification_types=-2))), 400, "disagree")


@scenario
def update_subscription_takes_the_whole_subscription_object():
    device = register()
    answer = API.update_subscription(APP_ID, device.id, SubscriptionBody(subscription=Subscription(
        id=device.id, type="iOSPush", token=device.token, enabled=True, notification_types=1, app_version="5.0",
        device_os="18.2", session_time=30, sdk="050210")))
    check(answer is None, f"update_subscription answered {answer!r}")
    row = stored(device.id)
    check(row["app_version"] == "5.0" and row["device_os"] == "18.2" and row["enabled"], f"stored {row}")
    expect_api_error(lambda: API.update_subscription(APP_ID, "sub_unknown", SubscriptionBody(
        subscription=Subscription(enabled=False))), 404, "sub_unknown")


@scenario
def update_subscription_moves_the_device_to_a_new_token():
    device = register()
    old = Device(device.token, device.id)
    new_token = fresh_token()
    answer = API.update_subscription(APP_ID, device.id, SubscriptionBody(subscription=Subscription(token=new_token.upper())))
    check(answer is None, f"update_subscription answered {answer!r}")
    check(stored(device.id)["token"] == new_token, f"stored {stored(device.id)}")
    device.token = new_token  # DEVICES holds it: later broadcasts are looked for on the new token
    body = "moved " + nonce()
    wait_sent(send_to(device, body).id, 1)
    check_reached(body, [device], [old])
    holder = register()
    expect_api_error(lambda: API.update_subscription(APP_ID, device.id, SubscriptionBody(
        subscription=Subscription(token=holder.token))), 409, "already another subscription's token")
    expect_api_error(lambda: API.update_subscription(APP_ID, device.id, SubscriptionBody(
        subscription=Subscription(token="not-hex"))), 400, "subscription.token must be")
    check(stored(device.id)["token"] == new_token, f"stored {stored(device.id)}")


@scenario
def transfer_subscription_to_another_user():
    before, after = "sub-from-" + nonce(), "sub-to-" + nonce()
    new_user(after)
    device = register(external_id=before)
    answer = API.transfer_subscription(APP_ID, device.id, TransferSubscriptionRequestBody(identity={"external_id": after}))
    identity = answer.identity.to_dict()
    check(identity.get("external_id") == after and identity.get("onesignal_id", "").startswith("usr_"), f"identity {identity}")
    check(stored(device.id)["external_id"] == after, f"stored {stored(device.id)}")
    check(user_devices(after) == [device.id] and user_devices(before) == [],
          f"devices: {before} {user_devices(before)}, {after} {user_devices(after)}")
    body = "to the new owner " + nonce()
    sent = create(include_aliases=IncludeAliases(external_id=[after]), target_channel="push", contents=LanguageStringMap(en=body))
    wait_sent(sent.id, 1)
    check_reached(body, [device], [])
    expect_api_error(lambda: API.transfer_subscription(APP_ID, device.id, TransferSubscriptionRequestBody(
        identity={"external_id": "nobody-" + nonce()})), 404, "user not found")


@scenario
def update_subscription_by_token():
    device = register()
    answer = API.update_subscription_by_token(APP_ID, "iOSPush", device.token,
                                              SubscriptionBody(subscription=Subscription(enabled=False)))
    check(answer == {}, f"update_subscription_by_token answered {answer!r}")
    DEVICES.remove(device)
    check(stored(device.id)["enabled"] is False, f"stored {stored(device.id)}")
    check_not_sent(device)
    API.update_subscription_by_token(APP_ID, "iOSPush", device.token,
                                     SubscriptionBody(subscription=Subscription(notification_types=1)))
    DEVICES.append(device)
    check(stored(device.id)["enabled"] is True, f"stored {stored(device.id)}")
    check_sent(device)
    expect_api_error(lambda: API.update_subscription_by_token(APP_ID, "iOSPush", fresh_token(), SubscriptionBody(
        subscription=Subscription(enabled=False))), 404, "no iOSPush subscription")


@scenario
def delete_subscription_stops_its_pushes():
    user = "sub-del-" + nonce()
    new_user(user)
    token = fresh_token()
    created = API.create_subscription(APP_ID, "external_id", user, apple(token)).subscription
    device = Device(token, created.id)
    answer = API.delete_subscription(APP_ID, device.id)
    check(answer is None, f"delete_subscription answered {answer!r}")
    row = stored(device.id)
    check(row["retired"] is True and row["notification_types"] == -2, f"stored {row}")
    check(user_devices(user) == [], f"{user}'s devices: {user_devices(user)}")
    check_not_sent(device)
    expect_api_error(lambda: API.transfer_subscription(APP_ID, device.id, TransferSubscriptionRequestBody(
        identity={"external_id": user})), 404, device.id)


@scenario
def create_subscription_android_push_keeps_the_token_as_sent():
    user = "sub-android-" + nonce()
    new_user(user)
    # An FCM registration token is opaque: mixed case, a colon, kept exactly as sent.
    token = "cXk9Ab-" + nonce() + ":APA91bH_Qz7LmNoPqRsTuVwXyZ"
    answer, status, _ = API.create_subscription(
        APP_ID, "external_id", user, SubscriptionBody(subscription=Subscription(type="AndroidPush", token=token)),
        _return_http_data_only=False)
    created = answer.subscription
    check(status == 201, f"status {status}")
    check(created.type == "AndroidPush" and created.token == token, f"subscription {created}")
    row = stored(created.id)
    check(row["platform"] == "android" and row["token"] == token and row["external_id"] == user, f"stored {row}")
    check(user_devices(user) == [created.id], f"{user}'s devices: {user_devices(user)}")
    again, status, _ = API.create_subscription(
        APP_ID, "external_id", user, SubscriptionBody(subscription=Subscription(type="AndroidPush", token=token)),
        _return_http_data_only=False)
    check(status == 200 and again.subscription.id == created.id, f"status {status}, subscription {again.subscription}")
    # Retired again: the other scenarios' segment sends count Apple devices only.
    API.delete_subscription(APP_ID, created.id)


@scenario
def subscription_errors_as_the_client_raises_them():
    user = "sub-err-" + nonce()
    new_user(user)
    expect_api_error(lambda: API.create_subscription(APP_ID, "external_id", user, SubscriptionBody(
        subscription=Subscription(type="FireOSPush", token="adm-" + nonce()))), 400, "FireOSPush' is not supported")
    expect_api_error(lambda: API.create_subscription(APP_ID, "external_id", "nobody-" + nonce(), apple(fresh_token())),
                     404, "user not found")
    expect_api_error(lambda: client("not-the-key").create_subscription(APP_ID, "external_id", user, apple(fresh_token())),
                     401, "bad API key")
    expect_api_error(lambda: client("not-the-key").update_subscription_by_token(APP_ID, "iOSPush", fresh_token(),
                     SubscriptionBody(subscription=Subscription(enabled=False))), 401, "bad API key")
    check(user_devices(user) == [], f"{user}'s devices: {user_devices(user)}")
