-- Events out (webhooks and the event feed). Every fact worth telling a backend about is appended
-- to `events` in the transaction that makes it true, so a crash can repeat an event but never
-- lose one. Events are written once per app, not once per endpoint: each webhook keeps a cursor
-- into its app's events, so a failing endpoint only ever holds itself back.
CREATE TABLE webhooks (
    id                    text PRIMARY KEY,                     -- whk_…
    app_id                text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    url                   text NOT NULL,
    -- Event types, or {'*'} for every type.
    events                text[] NOT NULL,
    description           text,
    enabled               boolean NOT NULL DEFAULT true,
    disabled_reason       text,
    -- whsec_…: kept as is, because OpenPush signs with it (it is shown to the app only once).
    secret                text NOT NULL,
    -- After a rotation the old secret signs too (a second `v1`) until `previous_secret_until`.
    previous_secret       text,
    previous_secret_until timestamptz,
    -- The last event `seq` of the app this endpoint was sent (or skipped past): what follows it
    -- and matches `events` is pending.
    cursor_seq            bigint NOT NULL DEFAULT 0,
    -- Retries: when the next attempt may go, how many failed in a row, since when.
    next_attempt_at       timestamptz NOT NULL DEFAULT now(),
    failed_attempts       integer NOT NULL DEFAULT 0,
    failing_since         timestamptz,
    last_success_at       timestamptz,
    last_failure_at       timestamptz,
    last_failure_status   integer,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_by_app ON webhooks (app_id);

CREATE TABLE events (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          text NOT NULL UNIQUE,                           -- evt_…
    app_id      text NOT NULL,
    type        text NOT NULL,
    data        jsonb NOT NULL,
    -- Only this endpoint gets it (a `ping` from the test route); NULL: every matching endpoint.
    webhook_id  text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- The writing transaction: readers take only events below their snapshot's xmin, so an
    -- event whose transaction commits late (with a lower `seq`) is never skipped by a cursor.
    xid         xid8 NOT NULL DEFAULT pg_current_xact_id()
);
-- Endpoints and the feed read an app's events in `seq` order from a cursor.
CREATE INDEX events_by_app ON events (app_id, seq);
-- The maintenance loop drops events past the feed's 7 days.
CREATE INDEX events_by_time ON events (created_at);
