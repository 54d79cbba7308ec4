-- OAuth for /mcp (docs/oauth.md), beside the accounts it charges: registered clients, grants
-- (one per consent: the family of its codes and tokens, tied to the API key that approved
-- it), authorization codes and tokens. Codes and tokens are stored only as SHA-256 hashes,
-- like keys; a used code or refresh token keeps its row (used_at) so that a replay on any
-- replica is recognised and revokes its grant. Times are ISO 8601 UTC text, as in 001.
CREATE TABLE oauth_clients (
  client_id text PRIMARY KEY,
  client_name text,
  redirect_uris text NOT NULL,
  grant_types text NOT NULL,
  metadata text NOT NULL,
  created_at text NOT NULL,
  last_used_at text
);
CREATE INDEX oauth_clients_last_used ON oauth_clients (last_used_at);

CREATE TABLE oauth_grants (
  id text PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id),
  key_id text NOT NULL REFERENCES api_keys (id),
  scope text NOT NULL,
  resource text NOT NULL,
  created_at text NOT NULL,
  revoked_at text
);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
CREATE INDEX oauth_grants_key ON oauth_grants (key_id);
CREATE INDEX oauth_grants_user ON oauth_grants (user_id, created_at);

CREATE TABLE oauth_codes (
  hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  expires_at text NOT NULL,
  used_at text
);
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);

CREATE TABLE oauth_tokens (
  hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  expires_at text NOT NULL,
  used_at text
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at);
