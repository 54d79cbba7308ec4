import { describe, expect, test } from "bun:test";
import { PointInTimeFundamentals } from "../../../src/ingest/rules/point-in-time.ts";
import { balance, income, statements } from "./builders.ts";

describe("point-in-time fundamentals", () => {
  const s = statements({
    income_statement: [
      income("2023-12-31", { net_income: 1 }, { first_filed: "2024-02-10", last_filed: "2025-02-10" }),
      income("2024-12-31", { net_income: 2 }, { first_filed: "2025-02-10" }),
    ],
    balance_sheet: [
      balance("2024-09-30", { total_assets: 7 }, { type: "quarterly", first_filed: "2024-11-01" }),
    ],
  });

  test("a period becomes known on its first filing date, not its restatement", () => {
    const pit = new PointInTimeFundamentals(s, []);
    expect(pit.at("2024-02-09").flow).toBeNull();
    expect(pit.at("2024-02-10").flow?.period_end).toBe("2023-12-31"); // restated in 2025, known since 2024
    expect(pit.at("2024-10-31").balance).toBeNull();
    expect(pit.at("2024-11-01").balance?.total_assets).toBe(7);
    expect(pit.at("2025-02-10").flow?.period_end).toBe("2024-12-31");
    expect(pit.at("2025-02-10").prior_flow?.period_end).toBe("2023-12-31");
  });
  test("shares come from the latest as-of date among values filed so far", () => {
    const pit = new PointInTimeFundamentals(s, [
      { date: "2024-01-20", filed: "2024-02-10", value: 100 },
      { date: "2023-10-20", filed: "2024-03-01", value: 90 }, // filed later but older: ignored
      { date: "2024-04-20", filed: "2024-05-01", value: 110 },
    ]);
    expect(pit.at("2024-01-31").shares).toBeNull();
    expect(pit.at("2024-03-15").shares).toBe(100);
    expect(pit.at("2024-05-01").shares).toBe(110);
  });
  test("diluted shares restated after a split the prices predate are put back on the prices' basis", () => {
    // No cover count: the 2023 flow's 40 diluted shares (restated 2025-02-10) count. A 2-for-1
    // split on 2024-06-01 lies between the closes' basis (2024-03-08) and that filing → 20.
    const restated = statements({
      income_statement: [
        income(
          "2023-12-31",
          { diluted_average_shares: 40 },
          { first_filed: "2024-02-10", last_filed: "2025-02-10" },
        ),
      ],
    });
    const basis = { splits: [{ date: "2024-06-01", ratio: 2 }], date: "2024-03-08" };
    expect(new PointInTimeFundamentals(restated, [], basis).at("2024-03-08").shares).toBe(20);
  });
  test("dates must not go backwards", () => {
    const pit = new PointInTimeFundamentals(s, []);
    pit.at("2024-05-01");
    expect(() => pit.at("2024-04-01")).toThrow(RangeError);
  });
});
