import { type Endpoint, PRICING } from "../pricing.ts";

/** OpenAPI operation details: summary, description, the credit cost and the security scheme. */
export function operation(endpoint: Endpoint, summary: string, description?: string) {
  const cost = PRICING[endpoint];
  return {
    summary,
    description: `${description ?? summary}\n\nCost: ${cost} credit${cost === 1 ? "" : "s"} per successful call.`,
    "x-credit-cost": cost,
    security: cost === 0 && endpoint === "health" ? [] : [{ bearer: [] }],
  };
}
