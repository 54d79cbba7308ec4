-- The consent pages being shown (docs/oauth.md), so that the form of a page shown by one
-- replica may come back to any other. A row lives 10 minutes (expires_at, ms since the epoch)
-- and is deleted when its page is decided; `client` is the client's record as JSON (one known
-- by its metadata document is stored in oauth_clients only once approved). The CSRF token is a
-- nonce of the page, not a credential: it is kept as it was sent.
CREATE TABLE oauth_pending (
  id text PRIMARY KEY,
  csrf text NOT NULL,
  client text NOT NULL,
  redirect_uri text NOT NULL,
  state text,
  code_challenge text NOT NULL,
  scope text NOT NULL,
  resource text NOT NULL,
  address text NOT NULL,
  failures integer NOT NULL DEFAULT 0,
  expires_at bigint NOT NULL
);
CREATE INDEX oauth_pending_address ON oauth_pending (address, expires_at);
CREATE INDEX oauth_pending_expiry ON oauth_pending (expires_at);
