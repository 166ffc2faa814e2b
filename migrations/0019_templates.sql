-- OneSignal's message templates (`/templates`): a name and the push fields (`headings`,
-- `subtitle`, `contents`, `data`, `ios_sound`, `ios_category`, `ios_attachments`, `buttons`) that
-- `POST /notifications` with `template_id` fills in. `fields` holds them as the client sent them,
-- validated. A template belongs to its app, not to a shared demo tenant: like segments, every
-- tenant of the app reads and sends with the app's templates, and only the app's own REST keys
-- create, change or delete them, so no tenant can see or change anything another tenant made.
CREATE TABLE templates (
    id          text PRIMARY KEY,                                       -- tpl_…
    app_id      text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name        text NOT NULL,
    fields      jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
-- The list pages oldest first within an app.
CREATE INDEX templates_by_app ON templates (app_id, created_at, id);
