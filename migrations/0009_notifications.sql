-- Notifications (POST /notifications): the request stores the message and its audience
-- definition; delivery workers expand the audience into `deliveries` page by page, each page
-- committed with a keyset cursor, so a crashed expansion resumes where it stopped.

ALTER TABLE messages ADD COLUMN tenant_id text;                 -- a shared demo app's sending tenant
ALTER TABLE messages ADD COLUMN send_after timestamptz;          -- nothing is expanded before this
-- pending → done; cancelled stops it; failed when the audience can no longer be resolved.
ALTER TABLE messages ADD COLUMN expansion text CHECK (expansion IN ('pending', 'done', 'cancelled', 'failed'));
ALTER TABLE messages ADD COLUMN expanded_through text;           -- the last subscription id expanded
ALTER TABLE messages ADD COLUMN expansion_error text;
ALTER TABLE messages ADD COLUMN cancelled_at timestamptz;
CREATE INDEX messages_to_expand ON messages (send_after, id) WHERE expansion = 'pending';

-- The absolute badge a notification delivery shows (the subscription's counter after it).
ALTER TABLE deliveries ADD COLUMN badge integer;

-- WidgetKit reloads go to this token; ios_badgeType SetTo/Increase keep this counter.
ALTER TABLE subscriptions ADD COLUMN widget_push_token text;
ALTER TABLE subscriptions ADD COLUMN badge_count integer NOT NULL DEFAULT 0;
