-- Privacy (issue 13): what a device that hides alert details is shown when the message has no
-- `privacy_text` of its own, and the device's choice to hide them.
ALTER TABLE apps ADD COLUMN default_privacy_text text NOT NULL DEFAULT 'New notification';
ALTER TABLE subscriptions ADD COLUMN hide_details boolean NOT NULL DEFAULT false;
