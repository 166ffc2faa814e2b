-- A send to an app's phones asks, when neither the app nor the deployment names a VAPID subject,
-- whether its audience holds a browser (`platform = 'web'`): through `subscriptions_by_app` that
-- reads every row of an app without browsers to find none. This index holds browsers only, so
-- the answer for such an app is one probe of an empty range.
CREATE INDEX subscriptions_web_by_app ON subscriptions (app_id, id) WHERE platform = 'web';
