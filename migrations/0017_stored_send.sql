-- The validated send in its canonical, versioned form (`{"v": 1, "type": …}`, see StoredSend in
-- OpenPushCore), written with the message: workers build pushes from it and never parse the
-- request again. `request` stays for what GET /notifications/{id} echoes back. Rows written
-- before this column (NULL) are still read by parsing `request`.
ALTER TABLE messages ADD COLUMN send jsonb;
