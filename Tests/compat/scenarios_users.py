"""OneSignal's client against OpenPush, users and identity: update_user, get_user, get_aliases, aliases by subscription."""

from support import *  # noqa: F401,F403
