import { type OwnershipFiling, parseOwnershipDocument } from "../../src/ingest/sources/form4.ts";

export { importErrorOf } from "../helpers/import-error.ts";

export interface OwnerSpec {
  cik?: string;
  name?: string;
  relationship?: string;
}

export interface TransactionSpec {
  date: string;
  code: string;
  shares: string;
  /** Inner XML of <transactionPricePerShare>; a bare number is wrapped in <value>. */
  price?: string;
}

export interface DocumentSpec {
  documentType?: string;
  period?: string;
  issuerCik?: string;
  owners?: OwnerSpec[];
  transactions?: TransactionSpec[];
  dateOfOriginalSubmission?: string;
  signatureDate?: string;
}

const OFFICER = "<isOfficer>1</isOfficer><officerTitle>Chief Executive Officer</officerTitle>";

function ownerXml(owner: OwnerSpec): string {
  return `  <reportingOwner>
    <reportingOwnerId><rptOwnerCik>${owner.cik ?? "0000000001"}</rptOwnerCik><rptOwnerName>${owner.name ?? "Doe Jane"}</rptOwnerName></reportingOwnerId>
    <reportingOwnerRelationship>${owner.relationship ?? OFFICER}</reportingOwnerRelationship>
  </reportingOwner>`;
}

function transactionXml(tx: TransactionSpec): string {
  const price = tx.price === undefined ? "<value>10.00</value>" : tx.price;
  return `    <nonDerivativeTransaction>
      <securityTitle><value>Common Stock</value></securityTitle>
      <transactionDate><value>${tx.date}</value></transactionDate>
      <transactionCoding><transactionFormType>4</transactionFormType><transactionCode>${tx.code}</transactionCode></transactionCoding>
      <transactionAmounts>
        <transactionShares><value>${tx.shares}</value></transactionShares>
        <transactionPricePerShare>${/^[\d.]+$/.test(price) ? `<value>${price}</value>` : price}</transactionPricePerShare>
        <transactionAcquiredDisposedCode><value>${tx.code === "S" ? "D" : "A"}</value></transactionAcquiredDisposedCode>
      </transactionAmounts>
      <postTransactionAmounts><sharesOwnedFollowingTransaction><value>500</value></sharesOwnedFollowingTransaction></postTransactionAmounts>
    </nonDerivativeTransaction>`;
}

/** A complete ownership document; every field has a default (one S row, one officer). */
export function ownershipXml(spec: DocumentSpec = {}): string {
  const original = spec.dateOfOriginalSubmission
    ? `  <dateOfOriginalSubmission>${spec.dateOfOriginalSubmission}</dateOfOriginalSubmission>\n`
    : "";
  const transactions = spec.transactions ?? [{ date: "2024-03-01", code: "S", shares: "100" }];
  return `<?xml version="1.0"?>
<ownershipDocument>
  <schemaVersion>X0306</schemaVersion>
  <documentType>${spec.documentType ?? "4"}</documentType>
  <periodOfReport>${spec.period ?? "2024-03-01"}</periodOfReport>
${original}  <issuer><issuerCik>${spec.issuerCik ?? "0000012345"}</issuerCik><issuerName>Example Corp</issuerName><issuerTradingSymbol>exmp</issuerTradingSymbol></issuer>
${(spec.owners ?? [{}]).map(ownerXml).join("\n")}
  <nonDerivativeTable>
${transactions.map(transactionXml).join("\n")}
  </nonDerivativeTable>
  <ownerSignature><signatureName>/s/ Jane Doe</signatureName><signatureDate>${spec.signatureDate ?? "2024-03-04"}</signatureDate></ownerSignature>
</ownershipDocument>
`;
}

/** Parses ownershipXml(spec) under a file name carrying `accession` (none when null). */
export function parseSynthetic(spec: DocumentSpec, accession: string | null): OwnershipFiling {
  return parseOwnershipDocument(ownershipXml(spec), `EXMP_form4_${accession ?? "no-accession"}.xml`);
}
