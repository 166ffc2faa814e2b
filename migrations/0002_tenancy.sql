-- Tenancy and the device registry: apps and their keys, shared-demo tenants, subscriptions
-- (devices), users with aliases, and saved segments. Keys are stored only as SHA-256 digests.

CREATE TABLE apps (
    id                              text PRIMARY KEY,            -- app_…
    name                            text NOT NULL,
    apns_env                        text NOT NULL DEFAULT 'production' CHECK (apns_env IN ('sandbox', 'production')),
    apns_p8                         text,                        -- PEM of the .p8 key; never returned
    apns_key_id                     text,
    apns_team_id                    text,
    apns_bundle_id                  text,
    apns_watch_bundle_id            text,
    shared_demo                     boolean NOT NULL DEFAULT false,
    live_activity_auto_end_minutes  integer CHECK (live_activity_auto_end_minutes BETWEEN 1 AND 120),
    onesignal_alias                 boolean NOT NULL DEFAULT false,
    sdk_key_digest                  bytea NOT NULL,
    created_at                      timestamptz NOT NULL DEFAULT now(),
    updated_at                      timestamptz NOT NULL DEFAULT now()
);

-- A tenant of a shared demo app: holds its own REST key and sees only its linked devices.
CREATE TABLE tenants (
    id          text PRIMARY KEY,                                -- ten_…
    app_id      text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name        text,
    link_code   text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, link_code)
);

-- REST API keys. An app has one or more; a key with a tenant belongs to that tenant only.
CREATE TABLE api_keys (
    id          text PRIMARY KEY,                                -- key_…
    app_id      text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    tenant_id   text REFERENCES tenants (id) ON DELETE CASCADE,
    name        text NOT NULL,
    digest      bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    rotated_at  timestamptz
);
CREATE INDEX api_keys_by_app ON api_keys (app_id);

CREATE TABLE subscriptions (
    id                 text PRIMARY KEY,                         -- sub_…
    app_id             text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    token              text NOT NULL,                            -- APNs device token, hex
    platform           text NOT NULL DEFAULT 'ios' CHECK (platform IN ('ios', 'watchos', 'macos')),
    environment        text NOT NULL DEFAULT 'production' CHECK (environment IN ('production', 'sandbox')),
    external_id        text,
    tags               jsonb NOT NULL DEFAULT '{}'::jsonb,
    language           text,
    country            text,
    timezone           text,
    app_version        text,
    device_model       text,
    device_os          text,
    enabled            boolean NOT NULL DEFAULT true,
    session_count      integer NOT NULL DEFAULT 1,
    first_session_at   timestamptz NOT NULL,
    last_session_at    timestamptz NOT NULL,
    retired_at         timestamptz,
    superseded_by      text REFERENCES subscriptions (id),
    tenant_id          text REFERENCES tenants (id) ON DELETE SET NULL,   -- shared demo apps
    device_key_digest  bytea,                                             -- X-OP-Device-Key, shared demo apps
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, token)
);
CREATE INDEX subscriptions_by_external_id ON subscriptions (app_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX subscriptions_by_tenant ON subscriptions (tenant_id) WHERE tenant_id IS NOT NULL;

-- Users group subscriptions; an alias (label, value) names a user, unique per app.
-- The `external_id` alias is the one subscriptions carry.
CREATE TABLE users (
    id          text PRIMARY KEY,                                -- usr_…
    app_id      text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    tags        jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_by_app ON users (app_id);

CREATE TABLE user_aliases (
    app_id   text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    user_id  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label    text NOT NULL,
    value    text NOT NULL,
    PRIMARY KEY (app_id, label, value),
    UNIQUE (user_id, label)
);

CREATE TABLE segments (
    id          text PRIMARY KEY,
    app_id      text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name        text NOT NULL,
    filters     jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, name)
);
