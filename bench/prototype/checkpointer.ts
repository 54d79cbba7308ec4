/**
 * A worker thread that checkpoints the accounts WAL once a second on its own connection, so
 * that the serving thread (which sets `wal_autocheckpoint = 0`) never stalls in a checkpoint's
 * page copy and fsync inside a COMMIT. PASSIVE: it never blocks the writer.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

self.onmessage = (event: MessageEvent<string>) => {
  const db = new Database(event.data);
  db.exec("PRAGMA busy_timeout = 5000");
  setInterval(() => db.query("PRAGMA wal_checkpoint(PASSIVE)").get(), 1_000);
};
