-- Which exports each user has paid for (http/export-repeats.ts): one row per user and export
-- (snapshot and file). A row with a claimant is a read paying now, held until `until` (its
-- lease, renewed while it runs); a row without one is a payment, its repeats free until
-- `until`. Times are milliseconds since the epoch on the serving processes' clocks (a lease
-- is a minute, a window a day: seconds of skew between replicas change neither). Rows past
-- `until` are swept.
CREATE TABLE export_payments (
  user_id text NOT NULL REFERENCES users (id),
  export text NOT NULL,
  claimant text,
  until bigint NOT NULL,
  PRIMARY KEY (user_id, export)
);
CREATE INDEX export_payments_until ON export_payments (until);
