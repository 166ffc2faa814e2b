"""OneSignal's client against OpenPush, the audit log: list_audit_logs."""

from support import *  # noqa: F401,F403

import scenarios_apps


def organization_id():
    return API.get_app(APP_ID).organization_id


def all_pages(org, limit, **filters):
    """Every entry, following `next_cursor` page by page; checks each page's bound."""
    entries, cursor = [], None
    while True:
        page = API.list_audit_logs(org, limit=limit, cursor=cursor, **filters) if cursor else \
            API.list_audit_logs(org, limit=limit, **filters)
        check(len(page.audit_logs) <= limit, f"a page of {len(page.audit_logs)} entries with limit {limit}")
        entries += page.audit_logs
        if not page.has_more:
            check(page.get("next_cursor") is None, "next_cursor on the last page")
            return entries
        cursor = page.next_cursor


@scenario
def audit_log_lists_the_changes_newest_first():
    org = organization_id()
    app = scenarios_apps.STATE["app"]
    key = scenarios_apps.STATE["key"]
    page = API.list_audit_logs(org, limit=100)
    entries = page.audit_logs
    times = [entry.occurred_at for entry in entries]
    check(times == sorted(times, reverse=True), f"not newest first: {times}")
    by_action = {}
    for entry in entries:
        check(entry.organization_id == org, f"organization_id {entry.organization_id}")
        by_action.setdefault(entry.action, []).append(entry)
    created = [entry for entry in by_action.get("app.created", []) if entry.app_id == app.id]
    check(len(created) == 1, f"app.created of {app.id}: {[entry.to_dict() for entry in created]}")
    check((created[0].actor.id, created[0].actor.type) == ("org", "organization_api_key"), f"{created[0].to_dict()}")
    check(created[0].targets[0].id == app.id and created[0].targets[0].type == "app", f"{created[0].to_dict()}")
    check(created[0].context.metadata.get("request_id"), f"no request id: {created[0].to_dict()}")
    check(any(entry.app_id == app.id for entry in by_action.get("app.updated", [])), "app.updated is missing")
    # The key's life, newest first: deleted, rotated, updated, created.
    life = [entry.action for entry in entries if entry.targets[0].id == key]
    check(life == ["api_key.deleted", "api_key.rotated", "api_key.updated", "api_key.created"], f"the key's entries: {life}")
    check(all(REST_API_KEY not in str(entry.to_dict()) and ORGANIZATION_API_KEY not in str(entry.to_dict())
              for entry in entries), "a key's value in the audit log")


@scenario
def audit_log_filters_and_pages():
    org = organization_id()
    app = scenarios_apps.STATE["app"]
    key = scenarios_apps.STATE["key"]
    rotated = API.list_audit_logs(org, app_ids=[APP_ID], actions=["api_key.rotated", "api_key.deleted"])
    check([(entry.action, entry.targets[0].id) for entry in rotated.audit_logs if entry.targets[0].id == key]
          == [("api_key.deleted", key), ("api_key.rotated", key)], f"filtered: {rotated.to_dict()}")
    check({entry.action for entry in rotated.audit_logs} <= {"api_key.rotated", "api_key.deleted"}, "actions filter")
    check({entry.app_id for entry in rotated.audit_logs} == {APP_ID}, "app_ids filter")
    other = API.list_audit_logs(org, app_ids=[app.id])
    check(other.audit_logs and {entry.app_id for entry in other.audit_logs} == {app.id}, f"the other app: {other.to_dict()}")
    by_org = API.list_audit_logs(org, actor_ids=["org"], limit=100)
    check(by_org.audit_logs and all(entry.actor.id == "org" for entry in by_org.audit_logs), "actor_ids filter")
    # Pages of two follow each other without gaps or repeats, in the one-page order.
    whole = API.list_audit_logs(org, limit=100).audit_logs
    check(len(whole) >= 6, f"only {len(whole)} entries")
    paged = all_pages(org, 2)
    check([entry.id for entry in paged][:len(whole)] == [entry.id for entry in whole], "pages differ from one page")
    check(len({entry.id for entry in paged}) == len(paged), "an entry repeated across pages")
    # A time range: nothing after the newest entry.
    newest = whole[0].occurred_at
    later = API.list_audit_logs(org, start_time="2100-01-01T00:00:00Z")
    check(later.audit_logs == [] and later.has_more is False, f"after 2100: {later.to_dict()}")
    check(API.list_audit_logs(org, start_time=newest, limit=100).audit_logs[0].id == whole[0].id, "start_time includes its instant")
    expect_api_error(lambda: API.list_audit_logs("org_unknown"), 404, "unknown organization")
    expect_api_error(lambda: client(organization_api_key="wrong").list_audit_logs(org), 401, "organization key")
