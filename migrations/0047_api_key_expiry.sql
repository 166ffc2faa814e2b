-- A REST key may be minted to expire (`expires_in_seconds`; the console's own keys last 12
-- hours). NULL never expires. Adding a nullable column without a default rewrites nothing.
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
