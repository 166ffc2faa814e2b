-- A device linked to a user (its `external_id` set when it registers, or changed later by any
-- route) takes the user's tags, as OneSignal's user tags reach every subscription of the user.
-- Targeting and templates read a device's own tags; a user's tag changes already reach the
-- devices linked at that moment (UserStore.updateProperties), and this covers the ones linked
-- afterwards. The device's own keys win (they are the newest it was sent); the user's other keys
-- fill in, in key order, up to the device bound (TagLimits.maxKeys, passed as the argument), so
-- linking never fails for tags.
--
-- A shared demo app's users are shared by its tenants, whose tag writes each reach only their own
-- devices: its devices take nothing from them, so no tenant sees another's tags.
CREATE FUNCTION openpush_take_user_tags() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    max_tags constant integer := TG_ARGV[0]::integer;
    user_tags jsonb;
    room integer;
BEGIN
    SELECT u.tags INTO user_tags
    FROM user_aliases a JOIN users u ON u.id = a.user_id JOIN apps p ON p.id = a.app_id
    WHERE a.app_id = NEW.app_id AND a.label = 'external_id' AND a.value = NEW.external_id AND NOT p.shared_demo;
    IF user_tags IS NULL OR user_tags = '{}'::jsonb THEN
        RETURN NEW;
    END IF;
    room := max_tags - (SELECT count(*) FROM jsonb_object_keys(NEW.tags))::int;
    IF room > 0 THEN
        NEW.tags := NEW.tags || COALESCE((
            SELECT jsonb_object_agg(t.key, t.value)
            FROM (SELECT key, value FROM jsonb_each(user_tags) WHERE NOT NEW.tags ? key ORDER BY key LIMIT room) AS t
        ), '{}'::jsonb);
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER subscription_linked_takes_user_tags BEFORE INSERT ON subscriptions
    FOR EACH ROW WHEN (NEW.external_id IS NOT NULL)
    EXECUTE FUNCTION openpush_take_user_tags(100);
CREATE TRIGGER subscription_relinked_takes_user_tags BEFORE UPDATE OF external_id ON subscriptions
    FOR EACH ROW WHEN (NEW.external_id IS NOT NULL AND NEW.external_id IS DISTINCT FROM OLD.external_id)
    EXECUTE FUNCTION openpush_take_user_tags(100);
