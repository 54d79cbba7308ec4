/**
 * The companyfacts parser: structure validation on small synthetic documents, and the real
 * SEC files in STOCKD_FIXTURES (skipped with a notice when unset).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parseCompanyFacts } from "../../src/ingest/sources/companyfacts.ts";
import { FIXTURES } from "../helpers/env.ts";
import { importErrorOf } from "../helpers/import-error.ts";
import { readCompanyFacts } from "../helpers/raw-companyfacts.ts";

const fact = {
  start: "2023-01-01",
  end: "2023-12-31",
  val: 5,
  accn: "0000000001-24-000001",
  fy: 2023,
  fp: "FY",
  form: "10-K",
  filed: "2024-02-01",
};
const doc = (facts: unknown, cik: unknown = 1) => ({ cik, entityName: "X", facts });

describe("parseCompanyFacts on synthetic documents", () => {
  test("normalises a numeric or zero-padded string cik to ten digits", () => {
    expect(parseCompanyFacts(doc({}, 320193), "f.json").cik).toBe("0000320193");
    expect(parseCompanyFacts(doc({}, "0001997711"), "f.json").cik).toBe("0001997711");
  });

  test("keeps facts by taxonomy, concept and unit, with null start for instants", () => {
    const instant = { ...fact, start: undefined, end: "2023-12-31" };
    const parsed = parseCompanyFacts(
      doc({ "us-gaap": { Assets: { units: { USD: [fact, instant] } } } }),
      "f.json",
    );
    const list = parsed.facts.get("us-gaap")?.get("Assets")?.get("USD") ?? [];
    expect(list).toHaveLength(2);
    expect(list[0]).toEqual({ ...fact, frame: null });
    expect(list[1]?.start).toBeNull();
  });

  test("an Object.prototype member name is an ordinary concept, not a lookup accident", () => {
    const parsed = parseCompanyFacts(doc({ "us-gaap": {} }), "f.json");
    expect(parsed.facts.get("us-gaap")?.get("constructor")).toBeUndefined();
  });

  test("reads dei DocumentPeriodEndDate and AmendmentFlag by accession when present", () => {
    const dei = {
      DocumentPeriodEndDate: { units: { "": [{ ...fact, val: "2023-12-30" }] } },
      AmendmentFlag: { units: { "": [{ ...fact, val: true }] } },
    };
    const parsed = parseCompanyFacts(doc({ dei }), "f.json");
    expect(parsed.documents.get(fact.accn)).toEqual({ periodEndDate: "2023-12-30", amendmentFlag: true });
  });

  test.each([
    ["not an object", [], "expected a JSON object"],
    ["a bad cik", doc({}, "12a"), "cik"],
    ["no facts", { cik: 1, entityName: "X" }, "facts is missing"],
    ["units missing", doc({ "us-gaap": { Assets: {} } }), "facts.us-gaap.Assets.units is missing"],
    [
      "a non-numeric val",
      doc({ "us-gaap": { A: { units: { USD: [{ ...fact, val: "5" }] } } } }),
      "A.units.USD[0].val",
    ],
    [
      "a malformed end date",
      doc({ "us-gaap": { A: { units: { USD: [{ ...fact, end: "2023/12/31" }] } } } }),
      ".end",
    ],
    [
      "a missing accession",
      doc({ "us-gaap": { A: { units: { USD: [{ ...fact, accn: undefined }] } } } }),
      ".accn",
    ],
  ])("rejects a document with %s, naming the file and place", (_, json, message) => {
    const err = importErrorOf(() => parseCompanyFacts(json, "CIK0000000001.json"));
    expect(err.file).toBe("CIK0000000001.json");
    expect(err.message).toContain(message);
  });
});

describe.skipIf(!FIXTURES)("parseCompanyFacts on the real SEC files", () => {
  const root = FIXTURES ?? "";
  const dir = join(root, "edgar/companyfacts");

  test("parses every fixture, keeping every fact of every concept", () => {
    for (const name of readdirSync(dir)) {
      const raw = readCompanyFacts(root, name.slice("CIK".length, -".json".length));
      const parsed = parseCompanyFacts(raw, name);
      expect(`CIK${parsed.cik}.json`).toBe(name);
      let rawCount = 0;
      for (const concepts of Object.values(raw.facts as Record<string, Record<string, { units: object }>>)) {
        for (const c of Object.values(concepts)) for (const l of Object.values(c.units)) rawCount += l.length;
      }
      let parsedCount = 0;
      for (const concepts of parsed.facts.values()) {
        for (const units of concepts.values()) for (const l of units.values()) parsedCount += l.length;
      }
      expect(parsedCount, `fact count of ${name}`).toBe(rawCount);
    }
  });

  test("LPA's zero-padded string cik and TSM's ifrs-full TWD facts", () => {
    const lpa = parseCompanyFacts(readCompanyFacts(root, "0001997711"), "lpa.json");
    expect(lpa.cik).toBe("0001997711");
    const tsm = parseCompanyFacts(readCompanyFacts(root, "0001046179"), "tsm.json");
    expect(tsm.entityName).toBe("Taiwan Semiconductor Manufacturing Company Limited");
    expect(tsm.facts.get("ifrs-full")?.get("Revenue")?.has("TWD")).toBe(true);
  });
});
