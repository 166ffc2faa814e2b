-- Subscription ids are time-ordered, so the apps of one database interleave in id order, and a
-- notification's page (`app_id = … AND id > cursor ORDER BY id`) read every app's rows after its
-- cursor through the primary key (or every row of its app through (app_id, token), then sorted):
-- for an app with a tenth of the devices, ten rows read for each one sent, and more the smaller
-- the app. This index gives a page its own app's next rows, in order.
CREATE INDEX subscriptions_by_app ON subscriptions (app_id, id);
