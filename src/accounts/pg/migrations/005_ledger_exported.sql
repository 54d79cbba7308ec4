-- Which SQLite ledger rows `stockd accounts export` has copied, and the row each became here
-- (pg/export.ts). Copies get ids of this database, so a second export, after replicas have
-- written rows of their own, adds exactly the SQLite rows not yet copied, whatever ids either
-- side's rows have. Rows copied by an export before this table kept their SQLite ids; the
-- export recognises them by id and content.
CREATE TABLE ledger_exported (
  sqlite_id bigint PRIMARY KEY,
  ledger_id bigint NOT NULL UNIQUE REFERENCES ledger (id)
);
