import type { Route } from "../route.ts";
import { calendarRoutes } from "./calendar.ts";
import { derivedRoutes } from "./documents.ts";
import { filingsRoutes } from "./filings.ts";
import { securitiesRoutes } from "./securities.ts";
import { statementsRoutes } from "./statements.ts";
import { stocksRoutes } from "./stocks.ts";

/**
 * The families of data lookups: securities, a company's documents and prices, statements,
 * derived metrics, filings and the earnings calendar. The app serves them beside the system,
 * screener and export routes (app.ts); the MCP tools call them and take their parameter
 * schemas (mcp/tools.ts).
 */
export const dataRoutes: readonly Route[] = [
  ...securitiesRoutes,
  ...stocksRoutes,
  ...filingsRoutes,
  ...statementsRoutes,
  ...derivedRoutes,
  ...calendarRoutes,
];
