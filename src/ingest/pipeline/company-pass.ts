/**
 * The per-company pass, one company at a time: its statements from companyfacts, then each of
 * its securities' prices and derived documents. Pure computation over the source files: the
 * results go back to the importer, which writes them in company order (see company-pool.ts).
 */

import type { StatementKind, StatementPeriod } from "../../domain/statements.ts";
import { type TableValues, tableValues } from "../../snapshot/tables.ts";
import type { ImportContext, RecordingContext } from "../context.ts";
import { computeQuote } from "../rules/quote.ts";
import { type ComputedStatements, computeStatements, type FilingSummary } from "../rules/statements.ts";
import { parseCompanyFacts } from "../sources/companyfacts.ts";
import { parsePriceFile } from "../sources/price-files.ts";
import type { PriceRow, PriceSplit } from "../sources/price-rows.ts";
import { parseJson } from "../sources/value-readers.ts";
import { type PriceColumns, toPriceColumns } from "../writing/price-columns.ts";
import { type DerivedRow, deriveSecurity, deriveUndated, isUndated, type SecurityInputs } from "./derive.ts";
import { documentPath, type EdgarDocument, readDocument } from "./edgar-documents.ts";

/** One security of a company and its per-ticker market inputs. */
export interface SecurityJob {
  securityId: string;
  symbol: string;
  priceCurrency: string | null;
  priceFile: string | null;
  market: Omit<
    SecurityInputs,
    "securityId" | "symbol" | "priceCurrency" | "statements" | "shares" | "prices"
  >;
}

/** One company: its companyfacts document (if any) and its securities. */
export interface CompanyJob {
  index: number;
  facts: EdgarDocument | null;
  /** The company's SIC code, from its submissions or the listed-filer metadata. */
  sic: string | null;
  securities: SecurityJob[];
}

/** Statement table rows of one company, ready for the writer. */
export interface StatementTables {
  balance_sheet: TableValues;
  cash_flow_statement: TableValues;
  income_statement: TableValues;
  shares_outstanding: TableValues;
  filings: FilingSummary[];
}

export interface SecurityResult {
  securityId: string;
  /** Ascending daily prices; null without a price file or rows. */
  prices: PriceColumns | null;
  /** The quote row (none without prices). */
  quote: TableValues;
  derived: TableValues;
}

export interface CompanyResult {
  index: number;
  /** The `ImportContext.count` calls the company made, to be replayed in company order. */
  counts: Parameters<ImportContext["count"]>[];
  statements: StatementTables | null;
  securities: SecurityResult[];
}

type Statements = ComputedStatements & { cik: string };

/**
 * Computes companies one at a time and keeps the securities with documents dated by the whole
 * snapshot (`isUndated`) until `finishUndated` gives that date.
 */
export class CompanyPass {
  private readonly undated: { index: number; inputs: SecurityInputs }[] = [];

  constructor(private readonly ctx: RecordingContext) {}

  run(job: CompanyJob): CompanyResult {
    const priced = job.securities.map((security) => ({ security, ...this.prices(security) }));
    const priceSplits = priced.flatMap((p) => p.splits);
    const statements = job.facts ? this.statements(job.facts, job.sic, priceSplits) : null;
    const securities = priced.map((p) => this.security(job.index, p.security, p.rows, statements));
    return {
      index: job.index,
      counts: this.ctx.takeCounts(),
      statements: statements && statementTables(statements),
      securities,
    };
  }

  /** The kept securities' documents as of the snapshot's data date, with their company's index. */
  finishUndated(dataAsOf: string): { index: number; derived: DerivedRow[] }[] {
    return this.undated.map(({ index, inputs }) => ({ index, derived: deriveUndated(inputs, dataAsOf) }));
  }

  /**
   * A security's price file, read and parsed once: its bars, and the splits it records, which
   * the statements' share basis needs before the security's documents are derived.
   */
  private prices(job: SecurityJob): { rows: PriceRow[]; splits: PriceSplit[] } {
    if (!job.priceFile) return { rows: [], splits: [] };
    let splits: PriceSplit[] = [];
    const rows = this.ctx.parse(job.priceFile, "prices", (text, name, opts) => {
      const parsed = parsePriceFile(text, name, opts);
      splits = parsed.splits;
      return parsed;
    });
    return { rows, splits };
  }

  private statements(
    document: EdgarDocument,
    sic: string | null,
    priceSplits: readonly PriceSplit[],
  ): Statements | null {
    const file = documentPath(document);
    const name = this.ctx.name(file);
    const facts = this.ctx.guard(file, "companyfacts", () =>
      parseCompanyFacts(parseJson(readDocument(this.ctx, document), name), name),
    );
    if (!facts) return null;
    const computed = computeStatements(facts, { sic, priceSplits });
    const periods =
      computed.balance_sheet.length + computed.cash_flow_statement.length + computed.income_statement.length;
    this.ctx.count("companyfacts", file, periods);
    return { ...computed, cik: facts.cik };
  }

  private security(
    index: number,
    job: SecurityJob,
    prices: PriceRow[],
    statements: Statements | null,
  ): SecurityResult {
    const inputs: SecurityInputs = {
      securityId: job.securityId,
      symbol: job.symbol,
      priceCurrency: job.priceCurrency,
      statements,
      shares: statements?.shares_outstanding ?? [],
      prices,
      ...job.market,
    };
    const derived = deriveSecurity(inputs);
    if (isUndated(inputs)) this.undated.push({ index, inputs });
    return {
      securityId: job.securityId,
      prices: prices.length > 0 ? toPriceColumns(prices) : null,
      quote: tableValues(
        "quotes",
        [computeQuote(job.securityId, prices)].filter((q) => q !== null),
      ),
      derived: tableValues("derived", derived),
    };
  }
}

function statementTables(computed: Statements): StatementTables {
  const rows = (table: StatementKind, periods: readonly StatementPeriod[]) =>
    tableValues(
      table,
      periods.map(({ values, notes, ...period }) => ({
        ...period,
        notes: notes.length > 0 ? JSON.stringify(notes) : null,
        ...values,
      })),
    );
  return {
    balance_sheet: rows("balance_sheet", computed.balance_sheet),
    cash_flow_statement: rows("cash_flow_statement", computed.cash_flow_statement),
    income_statement: rows("income_statement", computed.income_statement),
    shares_outstanding: tableValues(
      "shares_outstanding",
      computed.shares_outstanding.map((s) => ({ cik: computed.cik, ...s })),
    ),
    filings: computed.filings,
  };
}
