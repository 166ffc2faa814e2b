-- openpush_register_subscription(…): `POST /v1/apps/{app_id}/subscriptions` without a
-- `previous_token`, in one statement (one round trip, one commit) instead of a transaction of
-- several (SubscriptionStore.registerInOneStatement calls it; the route falls back to the
-- transaction for a token refresh).
--
-- In order, as the transaction did:
-- - the app and its SDK key: `unknown_app` or `bad_sdk_key` (nothing written). Read in the same
--   statement as the write, so a rotated key is refused at once by every process. The digests
--   compared are SHA-256 of the keys: their equality leaks nothing about a key;
-- - on a shared demo app, a device already linked to a tenant needs its `X-OP-Device-Key`
--   (`device_key`, nothing written);
-- - the upsert (`INSERT … ON CONFLICT (app_id, token) DO UPDATE`: atomic under concurrent
--   registrations of one token), with `hide_details`, `quiet_hours` and `muted_threads` (kept
--   when not sent), counting a session on a known token and bringing a retired row back;
-- - the tag bound (TagLimits.countProblem: no change may take the count of keys above
--   `max_tags`, nor raise a count already above it): the row is locked before it is read, and a
--   change over the bound raises SQLSTATE OPTAG with DETAIL 'before after', which undoes the
--   whole statement;
-- - the user the `external_id` names (UserStore.ensureUser): created when no user holds that
--   alias; of two concurrent registrations of one new `external_id`, the loser of the alias
--   insert waits for the winner's commit, then removes the user it made.
-- `created`: true when the row is new (`201`), false when it was refreshed (`200`).
CREATE OR REPLACE FUNCTION openpush_register_subscription(
    app text, presented_sdk_digest bytea, presented_device_digest bytea, new_id text, new_user_id text, at double precision,
    device_token text, device_platform text, device_environment text, device_external_id text,
    tags_set jsonb, tags_removed text[], assigns_tags boolean, max_tags integer,
    device_language text, device_country text, device_timezone text, device_app_version text, device_model_name text,
    device_os_name text, device_enabled boolean, device_widget_push_token text, device_hide_details boolean,
    keep_quiet_hours boolean, quiet_start smallint, quiet_end smallint, device_muted_threads text[],
    OUT outcome text, OUT subscription_id text, OUT created boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    app_row record;
    linked_digest bytea;
    tags_before integer := 0;
    tags_after integer;
    stamp timestamptz := to_timestamp(at);
BEGIN
    SELECT a.shared_demo, a.sdk_key_digest INTO app_row FROM apps a WHERE a.id = app;
    IF NOT FOUND THEN
        outcome := 'unknown_app';
        RETURN;
    END IF;
    IF presented_sdk_digest IS NULL OR app_row.sdk_key_digest IS DISTINCT FROM presented_sdk_digest THEN
        outcome := 'bad_sdk_key';
        RETURN;
    END IF;
    IF app_row.shared_demo THEN
        SELECT s.device_key_digest INTO linked_digest FROM subscriptions s WHERE s.app_id = app AND s.token = device_token;
        IF linked_digest IS NOT NULL AND linked_digest IS DISTINCT FROM presented_device_digest THEN
            outcome := 'device_key';
            RETURN;
        END IF;
    END IF;
    -- Only a change that sets tags can take their count over the bound; it locks the row first.
    IF assigns_tags THEN
        SELECT (SELECT count(*) FROM jsonb_object_keys(s.tags))::int INTO tags_before
        FROM subscriptions s WHERE s.app_id = app AND s.token = device_token FOR UPDATE;
        tags_before := COALESCE(tags_before, 0);
    END IF;
    INSERT INTO subscriptions AS s (id, app_id, token, platform, environment, external_id, tags, language, country,
                                    timezone, app_version, device_model, device_os, enabled, widget_push_token,
                                    hide_details, quiet_hours_start, quiet_hours_end, muted_threads,
                                    session_count, first_session_at, last_session_at, created_at, updated_at)
    VALUES (new_id, app, device_token, COALESCE(device_platform, 'ios'), COALESCE(device_environment, 'production'),
            NULLIF(device_external_id, ''), tags_set, device_language, device_country, device_timezone,
            device_app_version, device_model_name, device_os_name, COALESCE(device_enabled, true), device_widget_push_token,
            COALESCE(device_hide_details, false),
            CASE WHEN keep_quiet_hours THEN NULL ELSE quiet_start END,
            CASE WHEN keep_quiet_hours THEN NULL ELSE quiet_end END,
            COALESCE(device_muted_threads, '{}'::text[]),
            1, stamp, stamp, stamp, stamp)
    ON CONFLICT (app_id, token) DO UPDATE SET
        platform = COALESCE(device_platform, s.platform),
        environment = COALESCE(device_environment, s.environment),
        external_id = CASE WHEN device_external_id IS NULL THEN s.external_id ELSE NULLIF(device_external_id, '') END,
        tags = (s.tags || tags_set) - tags_removed,
        language = COALESCE(device_language, s.language),
        country = COALESCE(device_country, s.country),
        timezone = COALESCE(device_timezone, s.timezone),
        app_version = COALESCE(device_app_version, s.app_version),
        device_model = COALESCE(device_model_name, s.device_model),
        device_os = COALESCE(device_os_name, s.device_os),
        enabled = COALESCE(device_enabled, s.enabled),
        widget_push_token = COALESCE(device_widget_push_token, s.widget_push_token),
        hide_details = COALESCE(device_hide_details, s.hide_details),
        quiet_hours_start = CASE WHEN keep_quiet_hours THEN s.quiet_hours_start ELSE quiet_start END,
        quiet_hours_end = CASE WHEN keep_quiet_hours THEN s.quiet_hours_end ELSE quiet_end END,
        muted_threads = COALESCE(device_muted_threads, s.muted_threads),
        -- The device says this token is current again: ordinary pushes may reach it.
        token_invalid_at = NULL,
        session_count = s.session_count + 1,
        last_session_at = stamp,
        retired_at = NULL,
        superseded_by = NULL,
        updated_at = stamp
    RETURNING s.id, (s.xmax = 0), (SELECT count(*) FROM jsonb_object_keys(s.tags))::int
    INTO subscription_id, created, tags_after;
    IF assigns_tags AND tags_after > max_tags AND tags_after > tags_before THEN
        RAISE EXCEPTION 'a registration over the tag bound' USING ERRCODE = 'OPTAG', DETAIL = tags_before || ' ' || tags_after;
    END IF;
    IF device_external_id <> '' THEN
        -- A plain lookup, not NOT EXISTS: the planner costs an EXISTS as if a match came soon,
        -- and may then scan the whole table for the usual answer, none.
        PERFORM 1 FROM user_aliases ua WHERE ua.app_id = app AND ua.label = 'external_id' AND ua.value = device_external_id;
        IF NOT FOUND THEN
            INSERT INTO users (id, app_id, tags, created_at, updated_at) VALUES (new_user_id, app, '{}'::jsonb, stamp, stamp);
            INSERT INTO user_aliases (app_id, user_id, label, value) VALUES (app, new_user_id, 'external_id', device_external_id)
            ON CONFLICT DO NOTHING;
            IF NOT FOUND THEN
                DELETE FROM users WHERE id = new_user_id;
            END IF;
        END IF;
    END IF;
    outcome := 'registered';
END
$$;
