-- OneSignal's subscription object carries the SDK version (`sdk`) and the total time spent in the
-- app (`session_time`, seconds) that a backend reports through create_subscription and
-- update_subscription; OpenPush keeps what it is sent and shows it back (left out while unknown).
-- Nullable columns without a default rewrite nothing.
ALTER TABLE subscriptions ADD COLUMN sdk text, ADD COLUMN session_time bigint;
