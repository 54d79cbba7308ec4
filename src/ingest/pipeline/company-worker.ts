/**
 * Entry point of a company worker thread (see company-pool.ts): computes the companies it is
 * sent and posts each result back; on `finish`, the earnings of the securities it kept.
 */

import { RecordingContext } from "../context.ts";
import { priceBuffers } from "../writing/price-columns.ts";
import { CompanyPass } from "./company-pass.ts";
import { serializeError, type ToPool, type ToWorker } from "./worker-messages.ts";

declare const self: Worker;

let pass: CompanyPass | null = null;

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  const post = (reply: ToPool, transfer: ArrayBuffer[] = []) => self.postMessage(reply, transfer);
  if (message.type === "start") {
    pass = new CompanyPass(new RecordingContext(message.root, message.lenient));
    return;
  }
  if (!pass) throw new Error("company worker used before start");
  if (message.type === "job") {
    try {
      const result = pass.run(message.job);
      const buffers = result.securities.flatMap((s) => (s.prices ? priceBuffers(s.prices) : []));
      post({ type: "result", result }, buffers);
    } catch (error) {
      post({ type: "failed", index: message.job.index, error: serializeError(error) });
    }
    return;
  }
  post({ type: "finished", undated: pass.finishUndated(message.dataAsOf) });
};
