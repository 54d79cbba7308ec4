/**
 * Insider trades from an EDGAR submission text file: the fixtures' full SGML submission of
 * Apple's Form 4 0000320193-22-000061 (variants/sgml/) imported as edgar/form4/<accession>.txt,
 * next to the SEC exchange list. Expected rows are read here from the file's <XML> block with
 * regular expressions, independently of the importer.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES, fixtureSources } from "../helpers/env.ts";
import type { Json } from "../helpers/raw-sources.ts";
import { serverOverImport } from "../helpers/server.ts";

const root = FIXTURES ?? "";
const SGML = "variants/sgml/0000320193-22-000061.txt";

const sources = () =>
  fixtureSources("stockd-insider-sgml-", {
    "edgar/company_tickers_exchange.json": "edgar/company_tickers_exchange.json",
    "edgar/form4/0000320193-22-000061.txt": SGML,
  });

/** Code, date and shares of each non-derivative transaction in the submission's XML. */
function transactions(): { code: string; date: string; shares: number }[] {
  const text = readFileSync(join(root, SGML), "utf8");
  const table = /<nonDerivativeTable>([\s\S]*?)<\/nonDerivativeTable>/.exec(text)?.[1] ?? "";
  return [...table.matchAll(/<nonDerivativeTransaction>([\s\S]*?)<\/nonDerivativeTransaction>/g)].map(
    ([, t]) => ({
      code: /<transactionCode>(\w)<\/transactionCode>/.exec(t ?? "")?.[1] ?? "",
      date: /<transactionDate>\s*<value>([^<]+)<\/value>/.exec(t ?? "")?.[1] ?? "",
      shares: Number(/<transactionShares>\s*<value>([^<]+)<\/value>/.exec(t ?? "")?.[1]),
    }),
  );
}

describe.skipIf(!FIXTURES)("insider trades from an SGML submission file (STOCKD_FIXTURES)", () => {
  const fixtures = serverOverImport(FIXTURES ? sources() : "");

  test("AAPL: the seven sales of the submission's ownership document", async () => {
    const expected = transactions().filter((t) => t.code === "P" || t.code === "S");
    expect(expected).toHaveLength(7);
    const body = await fixtures.get<{ insider_tradings: Json[] }>("/securities/AAPL/insider_tradings");
    const rows = body.insider_tradings.map((r) => ({
      code: r.transaction_code,
      date: r.transaction_date,
      shares: r.shares,
    }));
    const order = (a: { shares: unknown }, b: { shares: unknown }) => Number(a.shares) - Number(b.shares);
    expect(rows.sort(order)).toEqual(expected.sort(order));
  });
});
