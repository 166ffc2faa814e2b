-- Android devices (FCM registration tokens) beside Apple ones. Their tokens are opaque text
-- kept as sent; Apple's stay lower-cased hex (checked by the routes, not here).
ALTER TABLE subscriptions DROP CONSTRAINT IF EXISTS subscriptions_platform_check;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_platform_check
    CHECK (platform IN ('ios', 'watchos', 'macos', 'android'));
