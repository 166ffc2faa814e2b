-- A device's extra APNs tokens, one per kind (VoIP and the other PushKit-style tokens): each
-- kind is its own token from its own framework, sent to with its own push type and topic. The
-- environment is the device's (`subscriptions.environment`). A rejected one is deleted alone;
-- `updated_at` is when it was last registered, for APNs' 410 timestamp rule.
CREATE TABLE device_push_tokens (
    subscription_id  text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    app_id           text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    kind             text NOT NULL CHECK (kind IN ('voip', 'location', 'pushtotalk', 'complication', 'fileprovider')),
    token            text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (subscription_id, kind)
);
CREATE INDEX device_push_tokens_by_app ON device_push_tokens (app_id, kind);
