"""OneSignal's client against OpenPush, exports: export_subscriptions, get_notification_history, export_events."""

from support import *  # noqa: F401,F403
