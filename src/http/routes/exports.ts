import { statSync } from "node:fs";
import { join } from "node:path";
import { t } from "elysia";
import type { Accounts } from "../../accounts/seam.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import {
  type ExportFile,
  type ExportFormat,
  type ExportTable,
  exportCacheDir,
  exportFile,
  exportTables,
  findExport,
  type MadeFiles,
} from "../../query/exports.ts";
import type { LoadedSnapshot } from "../../query/snapshot.ts";
import { streamed } from "../body.ts";
import type { Call } from "../context.ts";
import { CSV_TYPE } from "../csv.ts";
import { ExportRepeats } from "../export-repeats.ts";
import { PRICING } from "../pricing.ts";
import { requestedRange } from "../ranges.ts";
import { defineRoute, type Route } from "../route.ts";

/** Bytes the server's export cache holds before it removes other snapshots' files (query/exports.ts). */
export const EXPORT_CACHE_BYTES = 20 * 1024 ** 3;
const MIB = 1024 * 1024;
const CONTENT_TYPES: Record<ExportFormat, string> = {
  parquet: "application/vnd.apache.parquet",
  csv: CSV_TYPE,
};

/** An export's price: per started MiB of its table's Parquet file, at least 1 (pricing.ts). */
export function exportPrice(parquetBytes: number): number {
  return Math.max(1, Math.ceil(parquetBytes / MIB)) * PRICING.export;
}

const madeFiles = (snapshot: LoadedSnapshot): MadeFiles => ({
  dir: exportCacheDir(snapshot),
  cacheBytes: EXPORT_CACHE_BYTES,
});

const FileSchema = t.Object({
  url: t.String({
    description: "its path on this server (with the pinned snapshot, when the list was pinned)",
  }),
  bytes: t.Union([t.Integer(), t.Null()], {
    description: "its size; null for a CSV not made yet (made on its first read)",
  }),
});

const ExportList = t.Object({
  metadata: t.Object({ snapshot_id: t.String(), pricing: t.String() }),
  tables: t.Array(
    t.Object({
      name: t.String(),
      table: t.String({ description: "the snapshot table it holds" }),
      period_type: t.Union([t.String(), t.Null()], {
        description: "a statement's period type; null for a whole table",
      }),
      rows: t.Integer(),
      credits: t.Integer({ description: "what reading it costs, Parquet or CSV, once per 24 hours" }),
      parquet: FileSchema,
      csv: FileSchema,
    }),
  ),
});

const PRICING_RULE = `${PRICING.export} credit per started MiB of the table's Parquet file, at least 1, for its Parquet or its CSV file; charged once: repeated reads of the same file (ranges or whole) by the same user within 24 hours of the charged one cost nothing; HEAD costs nothing`;

/** `/exports`: the snapshot's tables, their files' sizes, rows and prices. Free. */
const list = defineRoute({
  path: "/exports",
  endpoint: "exports",
  response: ExportList,
  summary: "Tables to download whole",
  description:
    'Every table of the snapshot, each statement table once per period type, with its rows, its Parquet and CSV files and its price. docs/api.md, "Exports".',
  async handler({ snapshot, call }) {
    const pin = call.url.searchParams.has("snapshot") ? `?snapshot=${snapshot.id}` : "";
    const tables = [];
    for (const table of exportTables(snapshot)) {
      const parquet = await exportFile(snapshot, table, "parquet", madeFiles(snapshot));
      tables.push({
        name: table.name,
        table: table.table,
        period_type: table.periodType,
        rows: parquet.rows,
        credits: exportPrice(parquet.bytes),
        parquet: { url: `/exports/${table.name}.parquet${pin}`, bytes: parquet.bytes },
        csv: { url: `/exports/${table.name}.csv${pin}`, bytes: madeSize(snapshot, table) },
      });
    }
    return { metadata: { snapshot_id: snapshot.id, pricing: PRICING_RULE }, tables };
  },
});

/** A CSV file's size when it was made already, else null (the list and HEAD make no CSV). */
function madeSize(snapshot: LoadedSnapshot, table: ExportTable): number | null {
  return (
    statSync(join(madeFiles(snapshot).dir, `${table.name}.csv`), { throwIfNoEntry: false })?.size ?? null
  );
}

/** The export a file name (`<name>.<format>`) names; 404 for a name the list does not hold. */
function exportOf(snapshot: LoadedSnapshot, file: string): { table: ExportTable; format: ExportFormat } {
  const dot = file.lastIndexOf(".");
  const table = findExport(snapshot, file.slice(0, dot));
  if (!table) throw new ApiError("not_found", `no export ${file}; GET /exports lists them`);
  return { table, format: file.slice(dot + 1) as ExportFormat };
}

/** The header fields of every answer with a file. */
const fileHeaders = (format: ExportFormat, name: string): Record<string, string> => ({
  "content-type": CONTENT_TYPES[format],
  "accept-ranges": "bytes",
  "content-disposition": `attachment; filename="${name}.${format}"`,
});

/**
 * HEAD of a CSV (free) never makes it: a CSV not made yet is answered without Content-Length
 * (RFC 9110 §8.6 lets a HEAD omit it), and its first GET makes it. A Parquet file's HEAD has
 * its length: the file is the snapshot's own or one the list makes anyway (its price needs it).
 */
function csvHead(snapshot: LoadedSnapshot, table: ExportTable): Response {
  const headers = fileHeaders("csv", table.name);
  const bytes = madeSize(snapshot, table);
  return new Response(null, {
    status: 200,
    headers: bytes === null ? headers : { ...headers, "content-length": String(bytes) },
  });
}

/** The file's bytes, or the one range the call asks for (`If-Range` naming another tag: the whole file). */
function fileAnswer(call: Call, file: ExportFile, format: ExportFormat, name: string): Response {
  const ifRange = call.request.headers.get("if-range");
  const range =
    ifRange !== null && ifRange !== call.etag
      ? null
      : requestedRange(call.request.headers.get("range"), file.bytes);
  const headers = fileHeaders(format, name);
  const whole = Bun.file(file.path);
  if (range === null) return streamed(whole, 200, headers);
  const part = whole.slice(range.start, range.end + 1);
  return streamed(part, 206, {
    ...headers,
    "content-range": `bytes ${range.start}-${range.end}/${file.bytes}`,
  });
}

/** `/exports/{name}.parquet` and `.csv`: a whole table, with ranges; billed once per 24 hours (ExportRepeats). */
function fileRoute(repeats: ExportRepeats): Route {
  return defineRoute({
    path: "/exports/:file",
    endpoint: "export",
    params: t.Object({
      file: t.String({
        pattern: "^[a-z][a-z0-9_]{0,63}\\.(parquet|csv)$",
        description: "a table's name from GET /exports, then .parquet or .csv",
        error: "file: must be a table's name from GET /exports, then .parquet or .csv",
      }),
    }),
    response: t.Any({ description: "the file (Parquet or RFC 4180 CSV with a header row); 206 for a range" }),
    summary: "Download a table",
    description: `A whole table as one file, Parquet or CSV, with Content-Length, Accept-Ranges and one byte range per request (Range: 206; a range past the end, a malformed one or more than one: 416). Cost: ${PRICING_RULE}.`,
    async price({ snapshot, call, params }) {
      const { table } = exportOf(snapshot, params.file);
      if (call.request.method === "HEAD") return 0;
      const parquet = await exportFile(snapshot, table, "parquet", madeFiles(snapshot));
      const key = call.key as NonNullable<Call["key"]>;
      const givenUp = () => call.abandoned || call.client.gone();
      const payment = await repeats.claim(key.user_id, `${snapshot.id}/${params.file}`, givenUp);
      if (payment === null) return 0;
      call.outcome = payment;
      return exportPrice(parquet.bytes);
    },
    async handler({ snapshot, call, params }) {
      const { table, format } = exportOf(snapshot, params.file);
      if (call.request.method === "HEAD" && format === "csv") return csvHead(snapshot, table);
      const file = await exportFile(snapshot, table, format, madeFiles(snapshot));
      return fileAnswer(call, file, format, table.name);
    },
  });
}

/** The export routes, with the record of which exports each user has paid for (kept in `accounts`). */
export function exportRoutes(accounts: Accounts, log?: Logger): Route[] {
  return [list, fileRoute(new ExportRepeats(accounts, { log }))];
}
