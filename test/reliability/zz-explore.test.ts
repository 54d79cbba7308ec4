import { test } from "bun:test";
import { demoDataDir, startTestServer } from "../helpers/server.ts";
test("explore", async () => {
  const s = await startTestServer(await demoDataDir());
  const doc = await (await s.get("/openapi.json")).json() as any;
  for (const [p, ops] of Object.entries(doc.paths)) {
    const op = (ops as any).get;
    console.log(p, op?.["x-credit-cost"], JSON.stringify((op?.parameters ?? []).map((x: any) => [x.name, x.in, x.required, x.schema])));
  }
  const { key, userId } = s.newKey(10);
  const h = { "idempotency-key": "abc" };
  const r1 = await s.get("/stocks/DWGT/profile", key, { headers: h });
  console.log(r1.status, [...r1.headers]);
  const r2 = await s.get("/stocks/DWGT/profile", key, { headers: h });
  console.log(r2.status, [...r2.headers]);
  console.log(s.accounts.getBalance(userId));
  const r3 = await s.get("/stocks/DWGT/price?start_date=1900-01-01&end_date=2025-01-01", key);
  console.log(r3.status, (await r3.text()).length);
  await s.stop();
}, 60000);
