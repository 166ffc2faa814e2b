-- iOS 18 broadcast channels: one APNs request updates every device subscribed to a channel.
-- A channel is created at APNs (its management hosts) and remembered here by app; a name is
-- unique within an app. Deleting one deletes it at APNs and here.
CREATE TABLE live_activity_channels (
    id                      text PRIMARY KEY,
    app_id                  text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name                    text NOT NULL,
    -- APNs' base64 channel id (`apns-channel-id`), what devices subscribe with.
    channel_id              text NOT NULL,
    message_storage_policy  smallint NOT NULL CHECK (message_storage_policy IN (0, 1)),
    environment             text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX live_activity_channels_name ON live_activity_channels (app_id, md5(name));
CREATE INDEX live_activity_channels_by_app ON live_activity_channels (app_id, created_at, id);

-- One broadcast message's send to its channel: the message's only recipient, and what APNs
-- answered (the notification view shows it). Written when queued, then by the worker.
CREATE TABLE live_activity_broadcasts (
    message_id       text PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    app_id           text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    -- The channel's row; kept when the channel is deleted later, as is its APNs id.
    channel          text NOT NULL,
    channel_id       text NOT NULL,
    environment      text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    -- 'cancelled': the message was cancelled before the broadcast went out.
    state            text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'accepted', 'error', 'cancelled')),
    attempts         integer NOT NULL DEFAULT 0,
    apns_status      integer,
    apns_reason      text,
    apns_request_id  text,
    apns_unique_id   text,
    finished_at      timestamptz
);

-- A broadcast's job carries one recipient: the channel (its row id and APNs id).
ALTER TABLE delivery_jobs DROP CONSTRAINT delivery_jobs_token_kind_check;
ALTER TABLE delivery_jobs ADD CONSTRAINT delivery_jobs_token_kind_check
    CHECK (token_kind IN ('device', 'update', 'push_to_start', 'widget', 'channel'));
