/** A filer's company record, as its SEC submissions file gives it and the `companies` table stores it. */
export interface Company {
  cik: string;
  name: string;
  entity_type: string | null;
  sic: string | null;
  sic_description: string | null;
  category: string | null;
  fiscal_year_end: string | null;
  state_of_incorporation: string | null;
  country_iso: string | null;
  country: string | null;
  website: string | null;
  investor_website: string | null;
  description: string | null;
  phone: string | null;
  ein: string | null;
  /** The earliest filing date in the imported submissions. */
  first_filing_date: string | null;
}
