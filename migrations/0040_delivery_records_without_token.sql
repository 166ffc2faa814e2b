-- A delivery record no longer keeps the device token its push went to: nothing reads it (the
-- deliveries route shows the subscription, and a rejected token is handled when its outcome
-- arrives, from the job), and at 65 bytes it was a quarter of every record's row and of the
-- WAL written per push.
ALTER TABLE deliveries DROP COLUMN token;
