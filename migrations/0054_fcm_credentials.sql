-- An app's FCM service account (issue 41): the key file's needed fields as JSON, sealed like
-- `apns_p8` and never returned; its project id in clear (shown, and part of the FCM URL).
ALTER TABLE apps
    ADD COLUMN fcm_service_account text,
    ADD COLUMN fcm_project_id      text,
    ADD CONSTRAINT apps_fcm_project_id_with_account CHECK ((fcm_service_account IS NULL) = (fcm_project_id IS NULL));
