/**
 * ISO 3166-1 alpha-2 codes from the country names SEC files carry
 * (`stateOrCountryDescription`, e.g. "Taiwan, Province of China"), using the runtime's own
 * ICU region names, so no country table is shipped.
 */

let byName: Map<string, string> | null = null;

function nameIndex(): Map<string, string> {
  if (byName) return byName;
  const names = new Intl.DisplayNames(["en"], { type: "region" });
  byName = new Map();
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = names.of(code);
      if (name && name !== code && !NOT_COUNTRIES.has(code)) byName.set(simplify(name), code);
    }
  }
  for (const [name, code] of Object.entries(ISO_STYLE_NAMES)) byName.set(simplify(name), code);
  return byName;
}

/** Reserved or withdrawn codes that ICU still names (UK = GB, DD = old Germany, EU ...). */
const NOT_COUNTRIES = new Set([
  "UK",
  "DD",
  "BU",
  "CS",
  "FX",
  "NT",
  "SU",
  "TP",
  "YU",
  "ZR",
  "EU",
  "EZ",
  "UN",
  "QO",
  "XA",
  "XB",
  "XK",
]);

/** ISO 3166 formal names SEC uses where ICU's short English name differs. */
const ISO_STYLE_NAMES: Record<string, string> = {
  "Korea, Republic of": "KR",
  "Korea, Democratic People's Republic of": "KP",
  "Russian Federation": "RU",
  "Viet Nam": "VN",
  "Iran, Islamic Republic of": "IR",
  "Bolivia, Plurinational State of": "BO",
  "Venezuela, Bolivarian Republic of": "VE",
  "Tanzania, United Republic of": "TZ",
  "Moldova, Republic of": "MD",
  "Virgin Islands, British": "VG",
  "Hong Kong": "HK",
  Macao: "MO",
  Myanmar: "MM",
};

function simplify(name: string): string {
  return name
    .toLowerCase()
    .replace(/&/g, "and")
    .replace(/[^a-z ]/g, "")
    .trim();
}

/**
 * The ISO code for a country name; null when unknown. Tries the whole name, then the part
 * before a comma ("Taiwan, Province of China"), then the part after the last one: EDGAR
 * names a Canadian province "British Columbia, Canada".
 */
export function countryIso(name: string | null | undefined): string | null {
  if (!name) return null;
  const index = nameIndex();
  const parts = name.split(",");
  return (
    index.get(simplify(name)) ??
    index.get(simplify(parts[0] ?? "")) ??
    index.get(simplify(parts.at(-1) ?? "")) ??
    null
  );
}
