import { t } from "elysia";
import { industryTemplate } from "../../domain/industry.ts";
import type { CompanyRow } from "../../query/companies.ts";
import type { Security } from "../../query/securities.ts";
import { Nullable, StrOrNull } from "./common.ts";

/** A company profile: `identity` and `general`, plus filer details from SEC submissions (docs/api.md). */
export const Profile = t.Object({
  identity: t.Object({
    company_id: StrOrNull,
    security_id: t.String(),
    symbol: t.String(),
    exchange: StrOrNull,
    company_name: t.String(),
    cik: StrOrNull,
    market: t.String({ description: "market of the listing: US for SEC-listed tickers" }),
    security_type: StrOrNull,
    composite_figi: StrOrNull,
    share_class_figi: StrOrNull,
  }),
  general: t.Object({
    country_iso: StrOrNull,
    currency: StrOrNull,
    company_website: StrOrNull,
    business_description: StrOrNull,
    industry_template: StrOrNull,
    company_country: StrOrNull,
    ipo_date: t.Null({ description: "not in SEC sources; reserved" }),
    security_active: t.Boolean(),
    sic: StrOrNull,
    sic_description: StrOrNull,
    fiscal_year_end: StrOrNull,
    state_of_incorporation: StrOrNull,
    entity_type: StrOrNull,
    filer_category: StrOrNull,
    phone: StrOrNull,
    first_filing_date: Nullable(
      t.String({
        description:
          "date of the first SEC filing: the earliest of the imported filings and of the older-filing files the submissions file lists",
      }),
    ),
  }),
});

/** The profile of a security and (when the snapshot has its submissions) its company. */
export function profileOf(security: Security, company: CompanyRow | null) {
  return {
    identity: {
      company_id: security.cik,
      security_id: security.security_id,
      symbol: security.ticker,
      exchange: security.exchange,
      company_name: company?.name ?? security.name,
      cik: security.cik,
      market: "US",
      security_type: security.security_type,
      composite_figi: security.composite_figi,
      share_class_figi: security.share_class_figi,
    },
    general: {
      country_iso: company?.country_iso ?? null,
      currency: security.currency_code,
      company_website: company?.website ?? company?.investor_website ?? null,
      business_description: company?.description ?? null,
      industry_template: industryTemplate(company?.sic ?? null),
      company_country: company?.country ?? null,
      ipo_date: null,
      security_active: security.active,
      sic: company?.sic ?? null,
      sic_description: company?.sic_description ?? null,
      fiscal_year_end: company?.fiscal_year_end ?? null,
      state_of_incorporation: company?.state_of_incorporation ?? null,
      entity_type: company?.entity_type ?? null,
      filer_category: company?.category ?? null,
      phone: company?.phone ?? null,
      first_filing_date: company?.first_filing_date ?? null,
    },
  };
}
