"""OneSignal's client against OpenPush, subscriptions: create, update, transfer, by token, delete, notification_types."""

from support import *  # noqa: F401,F403
