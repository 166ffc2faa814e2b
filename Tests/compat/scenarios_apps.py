"""OneSignal's client against OpenPush, apps and API keys: create_app, get_app, get_apps, update_app, the API key methods, copy_template_to_app."""

from support import *  # noqa: F401,F403
