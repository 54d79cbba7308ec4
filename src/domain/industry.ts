/**
 * The statement template an analyst reads a company with, from its SEC SIC code: banks and
 * insurers have no gross margin or inventory, REITs are valued on FFO. Everything else is
 * "general".
 */
export type IndustryTemplate = "bank" | "insurance" | "reit" | "general";

export function industryTemplate(sic: string | null): IndustryTemplate | null {
  if (!sic || !/^\d{3,4}$/.test(sic)) return null;
  const code = Number(sic);
  if (code === 6798) return "reit";
  if (code >= 6020 && code <= 6036) return "bank";
  if (code >= 6311 && code <= 6411) return "insurance";
  return "general";
}
