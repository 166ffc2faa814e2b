-- Browsers through Web Push (RFC 8030, 8291, 8292). A browser subscription's token is its push
-- endpoint URL (kept as sent); its message-encryption keys sit beside it, and OneSignal's type
-- (which browser's push service) is kept because the platform alone does not say it.
ALTER TABLE subscriptions DROP CONSTRAINT IF EXISTS subscriptions_platform_check;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_platform_check
    CHECK (platform IN ('ios', 'watchos', 'macos', 'android', 'web'));
ALTER TABLE subscriptions
    ADD COLUMN web_p256 text,
    ADD COLUMN web_auth text,
    ADD COLUMN web_type text
        CONSTRAINT subscriptions_web_type_check CHECK (web_type IN ('ChromePush', 'FirefoxPush', 'SafariPush', 'EdgePush')),
    ADD CONSTRAINT subscriptions_web_keys_check
        CHECK (platform <> 'web' OR (web_p256 IS NOT NULL AND web_auth IS NOT NULL AND web_type IS NOT NULL));

-- Each app's VAPID key pair: the private key sealed like the other secrets (a PKCS#8 PEM
-- before sealing), the public key as browsers take it (base64url of the uncompressed point).
-- Web push pauses per app when push services refuse its VAPID signature, like FCM's pause.
ALTER TABLE apps
    ADD COLUMN web_push_vapid_private_key text,
    ADD COLUMN web_push_vapid_public_key  text,
    ADD COLUMN web_push_subject           text,
    ADD COLUMN web_push_paused_at         timestamptz,
    ADD COLUMN web_push_status_reason     text,
    ADD COLUMN web_push_status_at         timestamptz;
