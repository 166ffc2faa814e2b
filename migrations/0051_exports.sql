-- Exports (issue 40): a subscriptions CSV (`POST /players/csv_export`), a message's history
-- (`POST /notifications/{id}/history`) and its events (`POST /notifications/{id}/export_events`).
-- A request records a job here and answers at once; a producer in any serve or worker process
-- leases it (`FOR UPDATE SKIP LOCKED`, a lease from PostgreSQL's clock, taken again when a
-- process dies), writes the gzip file page by page into `export_chunks`, and marks it ready. The
-- file lives in PostgreSQL so that any process can serve it; both rows go 3 days after the request.
CREATE TABLE exports (
    id           text PRIMARY KEY,                                   -- exp_…, unguessable
    app_id       text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    -- A shared demo tenant's key: the file holds the tenant's rows only, and only its keys read it.
    tenant_id    text REFERENCES tenants (id) ON DELETE CASCADE,
    kind         text NOT NULL CHECK (kind IN ('subscriptions', 'notification_sent', 'notification_clicked',
                                               'notification_events')),
    message_id   text,
    -- The request's options (columns, filters), as the producer reads them.
    options      jsonb NOT NULL DEFAULT '{}'::jsonb,
    state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'ready', 'failed')),
    attempts     integer NOT NULL DEFAULT 0,
    leased_until timestamptz,
    leased_by    text,
    error        text,
    row_count    bigint,
    byte_count   bigint,
    created_at   timestamptz NOT NULL,
    ready_at     timestamptz,
    expires_at   timestamptz NOT NULL
);
-- What a claim reads: the pending jobs, oldest first, by app.
CREATE INDEX exports_pending ON exports (created_at, id) WHERE state = 'pending';
CREATE INDEX exports_pending_by_app ON exports (app_id) WHERE state = 'pending';
CREATE INDEX exports_by_expiry ON exports (expires_at);

-- The file, in pieces of a few hundred kilobytes written as the producer goes.
CREATE TABLE export_chunks (
    export_id text NOT NULL REFERENCES exports (id) ON DELETE CASCADE,
    position  integer NOT NULL,
    data      bytea NOT NULL,
    PRIMARY KEY (export_id, position)
);
-- Compressed already.
ALTER TABLE export_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
