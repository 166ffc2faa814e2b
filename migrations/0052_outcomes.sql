-- Custom outcomes a device reports (`POST /v1/apps/{app_id}/outcomes`), added up per hour
-- rather than kept one row per report: an app's rows per hour are bounded by its distinct
-- names (`OutcomeLimits.namesPerAppHour`) times its platforms and attributions, however often
-- its devices report. The maintenance loop drops hours past `OutcomeLimits.retentionDays`.
-- `platform` is the reporting subscription's (`ios`, `watchos`, `macos`); `attribution` is
-- `direct` (a notification id was given) or `unattributed`.
CREATE TABLE outcome_hours (
    app_id      text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    hour        timestamptz NOT NULL,
    name        text NOT NULL,
    platform    text NOT NULL,
    attribution text NOT NULL CHECK (attribution IN ('direct', 'unattributed')),
    count       bigint NOT NULL,
    sum         bigint NOT NULL,
    PRIMARY KEY (app_id, hour, name, platform, attribution)
);
-- Retention drops whole hours across apps.
CREATE INDEX outcome_hours_by_hour ON outcome_hours (hour);

-- A saved segment can now be changed (`PATCH /apps/{app_id}/segments/{segment_id}`): when, and
-- OneSignal's optional description. NULL `updated_at`: never changed since `created_at`.
ALTER TABLE segments ADD COLUMN updated_at timestamptz;
ALTER TABLE segments ADD COLUMN description text;
