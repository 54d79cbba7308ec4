/**
 * The worker thread that checkpoints the accounts WAL for the serving process (see Billing):
 * once a second, on its own connection, PASSIVE (it never waits for or blocks the serving
 * thread's transactions). The serving connection turns auto-checkpointing off, so a COMMIT
 * on the serving thread never stalls in a checkpoint's page copy and fsync.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

export interface CheckpointRequest {
  path: string;
  everyMs: number;
}

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const { path, everyMs } = event.data;
  const db = new Database(path);
  db.exec("PRAGMA busy_timeout = 5000");
  const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
  setInterval(() => checkpoint.get(), everyMs);
};
