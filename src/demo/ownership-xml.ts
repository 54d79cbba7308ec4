/**
 * An SEC ownership document (schema X0508) for a demo Form 4, laid out as EDGAR serves them:
 * issuer, reporting owner with address and relationship, the non-derivative table (every
 * transaction, whatever its code), the derivative table (the option behind an M row),
 * footnotes, remarks and the signature.
 */
import type { DemoCompany } from "./universe.ts";

export interface Insider {
  cik: string;
  name: string;
  director: boolean;
  officer: boolean;
  tenPercent: boolean;
  title: string | null;
  holdings: number;
}

type TradeCode = "P" | "S" | "A" | "M" | "F";

export interface Trade {
  code: TradeCode;
  date: string;
  shares: number;
  price: number;
  direction: "A" | "D";
  /** Shares owned after the transaction. */
  after: number;
}

/** One ownership document of a demo insider, as insider-filings.ts plans it and this renders it. */
export interface OwnershipDoc {
  company: DemoCompany;
  owner: Insider;
  documentType: "4" | "4/A";
  periodOfReport: string;
  signatureDate: string;
  /** Amendments: when the amended filing was submitted. */
  originalSubmission: string | null;
  accession: string;
  trades: Trade[];
  /** An option exercise behind an M row: the derivative-table entry. */
  option: { exercisePrice: number; shares: number } | null;
  /** Sales under a Rule 10b5-1 plan. */
  plan: boolean;
  remarks: string;
}

const xmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const flag = (b: boolean) => (b ? "1" : "0");
const value = (tag: string, v: string | number, indent: string, footnote = "") =>
  `${indent}<${tag}>\n${indent}    <value>${v}</value>${footnote}\n${indent}</${tag}>`;

const AVERAGE_PRICE = "F1";
const PLAN = "F2";

function ownerXml(owner: Insider, state: string): string {
  const title =
    owner.title === null ? "" : `\n            <officerTitle>${xmlText(owner.title)}</officerTitle>`;
  return `    <reportingOwner>
        <reportingOwnerId>
            <rptOwnerCik>${owner.cik}</rptOwnerCik>
            <rptOwnerName>${xmlText(owner.name)}</rptOwnerName>
        </reportingOwnerId>
        <reportingOwnerAddress>
            <rptOwnerStreet1>${owner.tenPercent ? "100 EXAMPLE PLAZA" : "1 DEMO WAY"}</rptOwnerStreet1>
            <rptOwnerStreet2></rptOwnerStreet2>
            <rptOwnerCity>DEMOVILLE</rptOwnerCity>
            <rptOwnerState>${state}</rptOwnerState>
            <rptOwnerZipCode>00000</rptOwnerZipCode>
            <rptOwnerStateDescription></rptOwnerStateDescription>
        </reportingOwnerAddress>
        <reportingOwnerRelationship>
            <isDirector>${flag(owner.director)}</isDirector>
            <isOfficer>${flag(owner.officer)}</isOfficer>
            <isTenPercentOwner>${flag(owner.tenPercent)}</isTenPercentOwner>
            <isOther>0</isOther>${title}
        </reportingOwnerRelationship>
    </reportingOwner>`;
}

function transactionXml(trade: Trade, plan: boolean): string {
  const i = "            ";
  const note = (id: string, when: boolean) => (when ? `\n${i}    <footnoteId id="${id}"/>` : "");
  return `        <nonDerivativeTransaction>
${value("securityTitle", "Common Stock", "            ", note(PLAN, plan && trade.code === "S"))}
${value("transactionDate", trade.date, i)}
            <transactionCoding>
                <transactionFormType>4</transactionFormType>
                <transactionCode>${trade.code}</transactionCode>
                <equitySwapInvolved>0</equitySwapInvolved>
            </transactionCoding>
            <transactionAmounts>
${value("transactionShares", trade.shares, `${i}    `)}
${value("transactionPricePerShare", trade.price, `${i}    `, note(AVERAGE_PRICE, trade.code === "S" || trade.code === "P"))}
${value("transactionAcquiredDisposedCode", trade.direction, `${i}    `)}
            </transactionAmounts>
            <postTransactionAmounts>
${value("sharesOwnedFollowingTransaction", trade.after, `${i}    `)}
            </postTransactionAmounts>
            <ownershipNature>
${value("directOrIndirectOwnership", "D", `${i}    `)}
            </ownershipNature>
        </nonDerivativeTransaction>`;
}

function optionXml(doc: OwnershipDoc): string {
  const option = doc.option;
  const exercise = doc.trades.find((t) => t.code === "M");
  if (option === null || exercise === undefined) return "    <derivativeTable></derivativeTable>";
  const i = "            ";
  const expiration = `${Number(exercise.date.slice(0, 4)) + 5}${exercise.date.slice(4)}`;
  return `    <derivativeTable>
        <derivativeTransaction>
${value("securityTitle", "Employee Stock Option (right to buy)", i)}
${value("conversionOrExercisePrice", option.exercisePrice, i)}
${value("transactionDate", exercise.date, i)}
            <transactionCoding>
                <transactionFormType>4</transactionFormType>
                <transactionCode>M</transactionCode>
                <equitySwapInvolved>0</equitySwapInvolved>
            </transactionCoding>
            <transactionAmounts>
${value("transactionShares", option.shares, `${i}    `)}
${value("transactionPricePerShare", 0, `${i}    `)}
${value("transactionAcquiredDisposedCode", "D", `${i}    `)}
            </transactionAmounts>
${value("expirationDate", expiration, i)}
            <underlyingSecurity>
${value("underlyingSecurityTitle", "Common Stock", `${i}    `)}
${value("underlyingSecurityShares", option.shares, `${i}    `)}
            </underlyingSecurity>
            <ownershipNature>
${value("directOrIndirectOwnership", "D", `${i}    `)}
            </ownershipNature>
        </derivativeTransaction>
    </derivativeTable>`;
}

/** The XML text of one ownership document. */
export function renderOwnershipXml(doc: OwnershipDoc): string {
  const { company, owner } = doc;
  const original =
    doc.originalSubmission === null
      ? ""
      : `\n    <dateOfOriginalSubmission>${doc.originalSubmission}</dateOfOriginalSubmission>\n`;
  const signer = owner.tenPercent ? `${owner.name}, by its general partner` : owner.name;
  return `<?xml version="1.0"?>
<ownershipDocument>

    <schemaVersion>X0508</schemaVersion>

    <documentType>${doc.documentType}</documentType>

    <periodOfReport>${doc.periodOfReport}</periodOfReport>
${original}
    <notSubjectToSection16>0</notSubjectToSection16>

    <issuer>
        <issuerCik>${company.cik}</issuerCik>
        <issuerName>${xmlText(company.name)}</issuerName>
        <issuerTradingSymbol>${company.tickers[0] ?? ""}</issuerTradingSymbol>
    </issuer>

${ownerXml(owner, company.state)}

    <aff10b5One>${flag(doc.plan)}</aff10b5One>

    <nonDerivativeTable>
${doc.trades.map((t) => transactionXml(t, doc.plan)).join("\n")}
    </nonDerivativeTable>

${optionXml(doc)}

    <footnotes>
        <footnote id="${AVERAGE_PRICE}">The price reported is a weighted average of trades within a range of one percent.</footnote>
        <footnote id="${PLAN}">Sold under a Rule 10b5-1 trading plan adopted by the reporting person.</footnote>
    </footnotes>

    <remarks>${xmlText(`Fictional filing of the stockd demo data set. ${doc.remarks}`.trim())}</remarks>

    <ownerSignature>
        <signatureName>/s/ ${xmlText(signer)}</signatureName>
        <signatureDate>${doc.signatureDate}</signatureDate>
    </ownerSignature>
</ownershipDocument>
`;
}
