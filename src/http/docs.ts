import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import swaggerJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };

const ASSETS = "/docs/assets";

/**
 * `/openapi.json` and the docs page at `/docs`. The page's script and style are served from
 * the installed swagger-ui-dist package (embedded in the compiled binary), never a CDN, so
 * the docs work offline.
 */
export function docsPlugin(version: string) {
  return new Elysia({ name: "docs" })
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        provider: "swagger-ui",
        swagger: {
          theme: `${ASSETS}/swagger-ui.css`,
          cdn: `${ASSETS}/swagger-ui-bundle.js`,
          autoDarkMode: false,
        },
        documentation: {
          info: {
            title: "stockd",
            version,
            description:
              "Read-only stock data. Every call except /health needs `Authorization: Bearer <key>` and costs the credits shown per operation (`x-credit-cost`); a call that does not succeed (non-2xx) costs nothing. Errors are RFC 9457 problem details.",
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
        },
        exclude: { paths: [/^\/docs/] },
      }),
    )
    .get(
      `${ASSETS}/swagger-ui.css`,
      () => new Response(Bun.file(swaggerCss), { headers: { "content-type": "text/css" } }),
      {
        detail: { hide: true },
      },
    )
    .get(
      `${ASSETS}/swagger-ui-bundle.js`,
      () => new Response(Bun.file(swaggerJs), { headers: { "content-type": "text/javascript" } }),
      {
        detail: { hide: true },
      },
    );
}
