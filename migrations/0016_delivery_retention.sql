-- Delivery records are kept OPENPUSH_DELIVERY_RETENTION_DAYS in daily partitions, which the
-- maintenance loop drops whole. Before a partition goes, its records are counted into their
-- messages, in the same transaction as the drop, so GET /notifications/{id} answers the same
-- before and after: the view adds these figures to what `deliveries` still holds.
ALTER TABLE messages ADD COLUMN archived_successful integer NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN archived_failed integer NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN archived_errored integer NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN archived_converted integer NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN archived_cancelled integer NOT NULL DEFAULT 0;
-- Error reason → how many dropped records carried it, e.g. {"Unregistered": 3}.
ALTER TABLE messages ADD COLUMN archived_errors_by_reason jsonb NOT NULL DEFAULT '{}';
-- The latest `finished_at` among the dropped records (the view's `completed_at`).
ALTER TABLE messages ADD COLUMN archived_last_finished_at timestamptz;
