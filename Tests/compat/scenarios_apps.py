"""OneSignal's client against OpenPush, apps and API keys: create_app, get_app, get_apps, update_app, the API key methods, copy_template_to_app."""

from support import *  # noqa: F401,F403
from support import MESSAGES

from onesignal.model.app import App
from onesignal.model.copy_template_request import CopyTemplateRequest
from onesignal.model.create_api_key_request import CreateApiKeyRequest
from onesignal.model.update_api_key_request import UpdateApiKeyRequest

# What these scenarios created, for the audit log's scenarios (`scenarios_audit`).
STATE = {}


def send_with(api, device, body):
    """A notification to one device through `api` (another key's client); records the message."""
    answer = api.create_notification(Notification(app_id=APP_ID, include_subscription_ids=[device.id],
                                                  contents=LanguageStringMap(en=body)))
    if answer.id:
        MESSAGES.append(answer.id)
    return answer


@scenario
def apps_create_get_update_and_list():
    name = "Compat app " + nonce()
    created = API.create_app(App(name=name, apns_env="sandbox", apns_bundle_id="com.example.compat"))
    check(created.id.startswith("app_"), f"app id {created.id!r}")
    check(created.name == name and created.apns_env == "sandbox", f"created: {created.to_dict()}")
    check(created.organization_id.startswith("org_"), f"organization_id {created.organization_id!r}")
    check(created.basic_auth_key.startswith("rest_"), "the first REST key is shown once, as basic_auth_key")
    STATE["app"] = created
    fetched = API.get_app(created.id)
    check((fetched.id, fetched.name, fetched.organization_id) == (created.id, name, created.organization_id),
          f"get_app: {fetched.to_dict()}")
    check(fetched.get("basic_auth_key") is None, "get_app never shows a key")
    renamed = API.update_app(created.id, App(name=name + " renamed", apns_env="production"))
    check((renamed.name, renamed.apns_env) == (name + " renamed", "production"), f"update_app: {renamed.to_dict()}")
    check(API.get_app(created.id).name == name + " renamed", "get_app after update_app")
    apps = API.get_apps().value
    by_id = {app.id: app for app in apps}
    check(created.id in by_id and APP_ID in by_id, f"get_apps: {[app.id for app in apps]}")
    check({app.organization_id for app in apps} == {created.organization_id}, "one organization for every app")
    check(by_id[created.id].name == name + " renamed", "get_apps shows the update")
    expect_api_error(lambda: API.get_app("app_unknown"), 404, "unknown app")
    expect_api_error(lambda: client(organization_api_key="wrong").get_apps(), 401, "organization key")


@scenario
def api_keys_create_send_update_rotate_and_delete():
    device = register()
    created = API.create_api_key(APP_ID, CreateApiKeyRequest(name="compat " + nonce(), ip_allowlist_mode="disabled"))
    check(created.token_id.startswith("key_") and created.formatted_token.startswith("rest_"), f"{created.to_dict()}")
    STATE["key"] = created.token_id
    # The new key authenticates a send, and the device receives it.
    keyed = client(rest_api_key=created.formatted_token)
    body = "sent with a new key " + nonce()
    sent = send_with(keyed, device, body)
    wait_until("the push sent with the new key", lambda: body in device.bodies())
    check_reached(body, [device], [])
    listed = {token.token_id: token for token in API.view_api_keys(APP_ID).tokens}
    check(created.token_id in listed, f"view_api_keys: {list(listed)}")
    check(listed[created.token_id].ip_allowlist_mode == "disabled", f"{listed[created.token_id].to_dict()}")
    check(REST_API_KEY not in str(API.view_api_keys(APP_ID).to_dict()), "view_api_keys never shows a value")
    # update_api_key answers an object (never 204) and renames the key.
    updated = API.update_api_key(APP_ID, created.token_id, UpdateApiKeyRequest(name="renamed"))
    check(isinstance(updated, dict) and updated.get("token_id") == created.token_id, f"update_api_key: {updated}")
    renamed = {token.token_id: token for token in API.view_api_keys(APP_ID).tokens}[created.token_id]
    check(renamed.name == "renamed", f"after update_api_key: {renamed.to_dict()}")
    # A rotated key keeps its id; its old value stops working, the new one works.
    rotated = API.rotate_api_key(APP_ID, created.token_id)
    check(rotated.token_id == created.token_id, f"rotate_api_key changed the id: {rotated.to_dict()}")
    check(rotated.formatted_token != created.formatted_token, "rotate_api_key gave the same value")
    expect_api_error(lambda: keyed.get_notification(APP_ID, sent.id), 401, "bad API key")
    fresh = client(rest_api_key=rotated.formatted_token)
    check(fresh.get_notification(APP_ID, sent.id).id == sent.id, "the rotated value reads the message")
    # delete_api_key answers an object; the deleted key is refused.
    deleted = API.delete_api_key(APP_ID, created.token_id)
    check(isinstance(deleted, dict) and deleted.get("success") is True, f"delete_api_key: {deleted}")
    expect_api_error(lambda: fresh.get_notification(APP_ID, sent.id), 401, "bad API key")
    check(created.token_id not in {token.token_id for token in API.view_api_keys(APP_ID).tokens}, "deleted key listed")
    expect_api_error(lambda: API.rotate_api_key(APP_ID, created.token_id), 404, "unknown token")
    # The app's own key is untouched.
    check(API.get_notification(APP_ID, sent.id).id == sent.id, "the app's key still works")


@scenario
def copy_template_to_another_app():
    target = STATE["app"]
    template = API.create_template(CreateTemplateRequest(app_id=APP_ID, name="Copied " + nonce(),
                                                         contents=LanguageStringMap(en="Hello {{ first_name }}")))
    copy = API.copy_template_to_app(template.id, APP_ID, CopyTemplateRequest(target_app_id=target.id))
    check(copy.id.startswith("tpl_") and copy.id != template.id, f"copy: {copy.to_dict()}")
    check(copy.name == template.name and copy.content["contents"] == {"en": "Hello {{ first_name }}"},
          f"copy content: {copy.to_dict()}")
    target_api = client(rest_api_key=target.basic_auth_key)
    check(target_api.view_template(copy.id, target.id).name == template.name, "the target app has the copy")
    expect_api_error(lambda: API.view_template(copy.id, APP_ID), 404, "not found")
    check(API.view_template(template.id, APP_ID).id == template.id, "the source keeps its template")
    expect_api_error(lambda: API.copy_template_to_app("tpl_unknown", APP_ID, CopyTemplateRequest(target_app_id=target.id)),
                     404, "not found")
    expect_api_error(lambda: API.copy_template_to_app(template.id, APP_ID, CopyTemplateRequest(target_app_id="app_unknown")),
                     404, "unknown app")
    API.delete_template(template.id, APP_ID)
    STATE["template_copy"] = copy.id
