/**
 * The screener's expression parser (src/query/screener-expression.ts): what it accepts, the
 * position and expectation of what it refuses, its limits, and (fast-check, seeded) that on any
 * string it either parses or throws its own ExpressionError, never anything else.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  ExpressionError,
  MAX_DEPTH,
  MAX_EXPRESSION_LENGTH,
  MAX_TERMS,
  parseExpression,
} from "../../src/query/screener-expression.ts";
import type { ColumnType } from "../../src/snapshot/tables.ts";
import { testSeed } from "../helpers/seed.ts";

const COLUMNS = new Map<string, ColumnType>([
  ["symbol", "VARCHAR"],
  ["roe", "DOUBLE"],
  ["pe_ratio", "DOUBLE"],
  ["market_cap", "DOUBLE"],
  ["growth_fiscal_year", "BIGINT"],
  ["date", "DATE"],
]);

const parse = (source: string) => parseExpression(source, COLUMNS);

/** The error `source` gives (fails the test when it parses). */
function errorOf(source: string): ExpressionError {
  try {
    parse(source);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(source)} parsed`);
}

describe("accepted", () => {
  test("comparisons joined by and, or and parentheses, with and binding tighter", () => {
    expect(parse("roe>0.15 and pe_ratio<20 or market_cap>=1e9")).toEqual({
      type: "or",
      terms: [
        {
          type: "and",
          terms: [
            { type: "compare", column: "roe", comparator: ">", value: 0.15 },
            { type: "compare", column: "pe_ratio", comparator: "<", value: 20 },
          ],
        },
        { type: "compare", column: "market_cap", comparator: ">=", value: 1e9 },
      ],
    });
    expect(parse("roe > 0.1 AND (pe_ratio <= -2.5E1 OR pe_ratio != .5)")).toEqual({
      type: "and",
      terms: [
        { type: "compare", column: "roe", comparator: ">", value: 0.1 },
        {
          type: "or",
          terms: [
            { type: "compare", column: "pe_ratio", comparator: "<=", value: -25 },
            { type: "compare", column: "pe_ratio", comparator: "!=", value: 0.5 },
          ],
        },
      ],
    });
  });

  test("texts in either quote, a doubled quote inside, dates, is (not) null, any case", () => {
    expect(parse(`symbol = 'O''NEIL' or SYMBOL="A""B"`)).toEqual({
      type: "or",
      terms: [
        { type: "compare", column: "symbol", comparator: "=", value: "O'NEIL" },
        { type: "compare", column: "symbol", comparator: "=", value: 'A"B' },
      ],
    });
    expect(parse("date >= '2024-02-29' and roe IS NOT NULL and pe_ratio is null")).toEqual({
      type: "and",
      terms: [
        { type: "compare", column: "date", comparator: ">=", value: "2024-02-29" },
        { type: "null", column: "roe", negated: true },
        { type: "null", column: "pe_ratio", negated: false },
      ],
    });
  });
});

describe("refused, with the position and what was expected", () => {
  const cases: [string, number, string][] = [
    ["", 1, "a field name or a parenthesis"],
    ["roe", 4, "a comparison (<, <=, >, >=, =, !=) or is"],
    ["roe > ", 7, "a number"],
    ["roe > 'high'", 7, "a number"],
    ["symbol = 5", 10, "a quoted text"],
    ["date < '2024-02-30'", 8, "a date written 'YYYY-MM-DD'"],
    ["date < 20240101", 8, "a quoted date"],
    ["roe > 1e999", 7, "a finite number"],
    ["sector = 'x'", 1, "a field of the screener (docs/api.md)"],
    ["roe > 1 and", 12, "a field name or a parenthesis"],
    ["roe > 1 pe_ratio < 2", 9, "and, or, or the end"],
    ["(roe > 1", 9, "a closing parenthesis, and or or"],
    ["roe > 1)", 8, "and, or, or the end"],
    ["roe is 5", 8, "null or not null"],
    ["roe is not nothing", 12, "null"],
    ["symbol = 'open", 10, "a closing '"],
    ["roe > 1; drop table x", 8, "a field, a comparison or a parenthesis"],
    ["roe > 1 -- comment", 9, "a field, a comparison or a parenthesis"],
    ["roe == 1", 6, "a number"],
  ];
  for (const [source, position, expected] of cases)
    test(JSON.stringify(source), () => {
      const error = errorOf(source);
      expect(error.position, error.message).toBe(position);
      expect(error.expected).toBe(expected);
      expect(error.message).toStartWith(`at character ${position}: expected ${expected}, found `);
    });

  test("the limits: length, comparisons, nesting", () => {
    const long = `roe > ${"1".repeat(MAX_EXPRESSION_LENGTH)}`;
    expect(errorOf(long).expected).toBe(`at most ${MAX_EXPRESSION_LENGTH} characters`);
    const terms = (n: number) => Array.from({ length: n }, () => "roe > 1").join(" or ");
    expect(() => parse(terms(MAX_TERMS))).not.toThrow();
    const tooMany = errorOf(terms(MAX_TERMS + 1));
    expect(tooMany.expected).toBe(`at most ${MAX_TERMS} comparisons`);
    expect(tooMany.position).toBe(MAX_TERMS * "roe > 1 or ".length + 1);
    const nested = (n: number) => `${"(".repeat(n)}roe > 1${")".repeat(n)}`;
    expect(() => parse(nested(MAX_DEPTH))).not.toThrow();
    const deep = errorOf(nested(MAX_DEPTH + 1));
    expect(deep.expected).toBe(`at most ${MAX_DEPTH} nested parentheses`);
    expect(deep.position).toBe(MAX_DEPTH + 1);
    expect(errorOf("(".repeat(100_000)).expected).toBe(`at most ${MAX_EXPRESSION_LENGTH} characters`);
  });
});

describe("arbitrary input (fast-check)", () => {
  /** Pieces of the grammar, so that random strings get past the first token often. */
  const piece = fc.constantFrom(
    "roe",
    "pe_ratio",
    "symbol",
    "date",
    "growth_fiscal_year",
    "sector",
    " and ",
    " or ",
    " is ",
    " not ",
    " null",
    "(",
    ")",
    "<",
    "<=",
    ">",
    ">=",
    "=",
    "!=",
    "1e9",
    "-0.5",
    "1e999",
    ".",
    "'x'",
    "'2024-01-31'",
    '"',
    "'",
    "''",
    ";",
    "--",
    "\u0000",
    " ",
  );
  const source = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.array(piece, { maxLength: 40 }).map((parts) => parts.join("")),
    fc.array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: 40 }).map((parts) => parts.join("")),
  );

  test("parses, or throws an ExpressionError with a position inside the text (or just past it)", () => {
    const seed = testSeed("screener expression");
    fc.assert(
      fc.property(source, (text) => {
        try {
          parse(text);
        } catch (error) {
          if (!(error instanceof ExpressionError)) return false;
          return error.position >= 1 && error.position <= Math.max(text.length, MAX_EXPRESSION_LENGTH) + 1;
        }
        return true;
      }),
      { seed, numRuns: 5000 },
    );
  });
});
