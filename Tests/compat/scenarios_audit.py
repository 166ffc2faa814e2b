"""OneSignal's client against OpenPush, the audit log: list_audit_logs."""

from support import *  # noqa: F401,F403
