-- Jobs of a push to a device's extra tokens (`apns_push_type_override` voip, location,
-- pushtotalk, complication, fileprovider): their token kind is the extra kind, and like device
-- and widget jobs they hold no tokens: each recipient's token of the kind is read when the job
-- runs (`device_push_tokens`).
ALTER TABLE delivery_jobs DROP CONSTRAINT delivery_jobs_token_kind_check;
ALTER TABLE delivery_jobs ADD CONSTRAINT delivery_jobs_token_kind_check
    CHECK (token_kind IN ('device', 'update', 'push_to_start', 'widget', 'channel',
                          'voip', 'location', 'pushtotalk', 'complication', 'fileprovider'));
ALTER TABLE delivery_jobs DROP CONSTRAINT delivery_jobs_tokens_check;
ALTER TABLE delivery_jobs ADD CONSTRAINT delivery_jobs_tokens_check CHECK (
    cardinality(tokens) = cardinality(subscription_ids)
    OR (cardinality(tokens) = 0
        AND token_kind IN ('device', 'widget', 'voip', 'location', 'pushtotalk', 'complication', 'fileprovider')));
