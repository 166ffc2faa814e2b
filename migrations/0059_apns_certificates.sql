-- Certificate (.p12) authentication with APNs, as an alternative to the .p8 key: an app uses
-- one method at a time. `apns_certificate` holds the certificate's PEM followed by its private
-- key's PEM (unencrypted PKCS#8), sealed like `apns_p8` and never returned; what the app views
-- show is kept in clear beside it. `apns_certificate_warned_at` is set when the
-- `app.credentials_expiring` event was emitted for this certificate (cleared on replacement).
ALTER TABLE apps
    ADD COLUMN apns_auth                   text NOT NULL DEFAULT 'token' CHECK (apns_auth IN ('token', 'certificate')),
    ADD COLUMN apns_certificate            text,
    ADD COLUMN apns_certificate_expires_at timestamptz,
    ADD COLUMN apns_certificate_topics     text[],
    ADD COLUMN apns_certificate_warned_at  timestamptz,
    ADD CONSTRAINT apps_apns_certificate_complete CHECK (
        (apns_certificate IS NULL) = (apns_certificate_expires_at IS NULL)
        AND (apns_certificate IS NULL) = (apns_certificate_topics IS NULL)
        AND (apns_auth = 'certificate') = (apns_certificate IS NOT NULL));

-- Apple's `apns-unique-id` (sandbox answers carry it), kept on the delivery record so the
-- Push Notifications Console can look the push up.
ALTER TABLE delivery_rows ADD COLUMN apns_unique_id text;
