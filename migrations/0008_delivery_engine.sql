-- What the delivery engine remembers beyond the queue itself.

-- APNs discards a Live Activity push whose aps.timestamp is not newer than the last one, so
-- each activity keeps the last timestamp sent to it.
ALTER TABLE live_activities ADD COLUMN last_push_timestamp bigint;

-- Credential rejections (InvalidProviderToken, BadCertificate…, Forbidden) pause an app's
-- deliveries until its credentials are fixed; GET /apps/{id} shows why.
ALTER TABLE apps ADD COLUMN apns_paused_at timestamptz;
ALTER TABLE apps ADD COLUMN apns_status_reason text;
ALTER TABLE apps ADD COLUMN apns_status_at timestamptz;

-- APNs said this device token is dead (410, BadDeviceToken): ordinary pushes stop reaching it.
ALTER TABLE subscriptions ADD COLUMN token_invalid_at timestamptz;
