-- `notification.completed` is appended exactly once per message: the transaction that sees the
-- message's last delivery become final (or a cancel or failure end it) stamps this column in the
-- statement that decides, under the message row's lock, so two workers never both append it.
ALTER TABLE messages ADD COLUMN completed_event_at timestamptz;
