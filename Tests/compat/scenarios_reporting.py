"""OneSignal's client against OpenPush, reporting: get_outcomes, estimate_notification_recipients, get_segment, update_segment, legacy targeting."""

from support import *  # noqa: F401,F403
