-- The deployment is one organization: its id (`org_` and 32 hex digits) is made once, here, and
-- shown as `organization_id` on every app and in the audit log's path. One row, enforced.
CREATE TABLE organization (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    id text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO organization (id) VALUES ('org_' || replace(gen_random_uuid()::text, '-', ''));

-- Every administrative change (apps, keys, webhooks, credentials, tenants), written in the
-- transaction of the change itself. `actor_id` names a key by its id (`org` for the
-- organization key), never its value. No foreign keys: an entry outlives what it names.
-- `position` breaks ties between entries of the same instant and orders the cursor.
-- Kept a year: maintenance calls `openpush_audit_prune`.
CREATE TABLE audit_log (
    position bigint GENERATED ALWAYS AS IDENTITY,
    id text PRIMARY KEY,
    occurred_at timestamptz NOT NULL,
    action text NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    app_id text,
    target_type text NOT NULL,
    target_id text NOT NULL,
    request_id text,
    metadata jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_newest ON audit_log (occurred_at DESC, position DESC);
CREATE INDEX audit_log_by_app ON audit_log (app_id, occurred_at DESC, position DESC);

-- OneSignal's API key objects show `updated_at`: set by a rename or a rotation, NULL (shown as
-- `created_at`) before either. Nullable without a default: nothing is rewritten.
ALTER TABLE api_keys ADD COLUMN updated_at timestamptz;
