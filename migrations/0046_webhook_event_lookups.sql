-- How an endpoint finds its next event without reading the events it does not take. An endpoint
-- subscribed to a few types looks each of them up from its cursor (one index seek per type), and
-- its own `ping`s through the second index, so an app's other events — however many — cost it
-- nothing; the dispatcher then moves the cursor of an endpoint with nothing pending past them.
-- Events are few rows (a job's delivery events are one row), so each index costs little to keep.
CREATE INDEX events_by_app_type_position ON events (app_id, type, xid, seq);
CREATE INDEX events_by_webhook_position ON events (webhook_id, xid, seq) WHERE webhook_id IS NOT NULL;
