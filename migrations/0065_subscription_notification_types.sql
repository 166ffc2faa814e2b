-- OneSignal's `notification_types` as a backend last sent it (create_subscription,
-- update_subscription, by token): above 0 subscribed (iOS sends its permission bits), 0 or below
-- one of OneSignal's reasons for not subscribed. `enabled` stays what delivery reads; this is
-- only read back, and only while it agrees with `enabled` (a device or route that changes
-- `enabled` later wins, read as 1 or -2). NULL: never sent, or `enabled` sent alone since.
ALTER TABLE subscriptions ADD COLUMN notification_types integer;
