/**
 * Parser for SEC ownership documents (Forms 3, 4, 5 and their /A amendments), the XML
 * behind EDGAR insider filings. One document in, one OwnershipFiling out; the rules that
 * turn many filings into stored insider trades live in form4-select.ts.
 *
 * Only the non-derivative table's transactions become rows: the derivative table
 * (options, RSUs, convertible notes) and holdings are not trades in common stock.
 */
import type { OwnershipTransaction } from "../../snapshot/rows.ts";
import { ImportError } from "../errors.ts";
import {
  dateAt,
  flagAt,
  isNode,
  lineOf,
  nodesAt,
  numberAt,
  parseXml,
  textAt,
  type XmlNode,
  type XmlSource,
} from "./form4-xml.ts";

/** One reporting person (or entity) of an ownership document. */
export interface ReportingOwner {
  /** 10-digit zero-padded CIK, or null if the filer left it out. */
  cik: string | null;
  name: string;
  isDirector: boolean;
  isOfficer: boolean;
  isTenPercentOwner: boolean;
  isOther: boolean;
  officerTitle: string | null;
  otherText: string | null;
}

/** Everything the importer needs from one ownership document. */
export interface OwnershipFiling {
  /** The file name given to the parser, for messages. */
  file: string;
  /** Accession number: a submission's own, else the one in the file name (`\d{10}-\d{2}-\d{6}`), or null. */
  accessionNumber: string | null;
  /** As written: "3", "4", "4/A", "5", "5/A", ... */
  documentType: string;
  /** True for "…/A" document types. */
  isAmendment: boolean;
  periodOfReport: string;
  /** Amendments only: when the amended filing was submitted, if the filer said. */
  dateOfOriginalSubmission: string | null;
  /** Latest ownerSignature/signatureDate; used to order amendments. */
  signatureDate: string | null;
  issuer: { cik: string; name: string | null; tradingSymbol: string | null };
  owners: ReportingOwner[];
  transactions: OwnershipTransaction[];
}

/**
 * Parses one SEC ownership document.
 *
 * @param xml the document text
 * @param file the file name or path, used for the accession number and in errors
 * @throws ImportError (file, line, message) for malformed XML, a root other than
 *   `<ownershipDocument>`, a missing required field, or an unreadable date or number.
 */
export function parseOwnershipDocument(
  xml: string,
  file: string,
  within?: { accessionNumber: string | null; firstLine: number },
): OwnershipFiling {
  const source: XmlSource = { file, xml, firstLine: within?.firstLine };
  const doc = parseXml(source).ownershipDocument;
  if (!isNode(doc)) {
    throw new ImportError(file, null, "not an SEC ownership document (no <ownershipDocument> root element)");
  }
  const documentType = required(source, doc, textAt(doc, "documentType"), "documentType");
  const owners = nodesAt(doc, "reportingOwner").map(readOwner);
  if (owners.length === 0) throw new ImportError(file, lineOf(source, doc), "no <reportingOwner>");
  const ownerName = owners.map((owner) => owner.name).join("; ");
  const ownerTitleText = [...new Set(owners.map(ownerTitle))].join("; ");
  return {
    file,
    accessionNumber: within ? within.accessionNumber : accessionFromFileName(file),
    documentType,
    isAmendment: documentType.toUpperCase().endsWith("/A"),
    periodOfReport: required(source, doc, dateAt(source, doc, ["periodOfReport"]), "periodOfReport"),
    dateOfOriginalSubmission: dateAt(source, doc, ["dateOfOriginalSubmission"]),
    signatureDate: latestSignatureDate(source, doc),
    issuer: readIssuer(source, doc),
    owners,
    transactions: nodesAt(doc, "nonDerivativeTable", "nonDerivativeTransaction").map((node) =>
      readTransaction(source, node, ownerName, ownerTitleText),
    ),
  };
}

/**
 * The title shown for an owner: the officer title when the owner is an officer and
 * gave one, else "Director", "10% Owner", "Officer" (an officer without a title), and
 * "Other" for everyone else. otherText is free prose and is not used as a title.
 */
export function ownerTitle(owner: ReportingOwner): string {
  if (owner.isOfficer && owner.officerTitle) return owner.officerTitle;
  if (owner.isDirector) return "Director";
  if (owner.isTenPercentOwner) return "10% Owner";
  if (owner.isOfficer) return "Officer";
  return "Other";
}

/** Whether a text file's first bytes are an EDGAR submission's (full `.txt` or feed `.nc`). */
export function isSubmissionText(head: string): boolean {
  return /<(SEC-DOCUMENT|SUBMISSION|SEC-HEADER)>/i.test(head);
}

/** An `<XML>` block of a submission, up to its end tag. */
const XML_BLOCK = /<XML>\s*([\s\S]*?)<\/XML>/gi;

/**
 * The ownership documents of an EDGAR submission as one text file: a full submission (`.txt`:
 * `<SEC-DOCUMENT>`, a `<SEC-HEADER>` with `ACCESSION NUMBER:`, then each `<DOCUMENT>`) or a
 * dissemination feed's (`.nc`: `<SUBMISSION>` with `<ACCESSION-NUMBER>`). Each `<XML>` block
 * holding an `<ownershipDocument>` is parsed as one; its errors name the line in this file.
 * The accession number is the header's, else the file name's.
 */
export function parseSubmissionText(text: string, file: string): OwnershipFiling[] {
  const accessionNumber =
    /<ACCESSION-NUMBER>\s*(\d{10}-\d{2}-\d{6})/.exec(text)?.[1] ??
    /^ACCESSION NUMBER:\s*(\d{10}-\d{2}-\d{6})/m.exec(text)?.[1] ??
    accessionFromFileName(file);
  const filings: OwnershipFiling[] = [];
  for (const block of text.matchAll(XML_BLOCK)) {
    const xml = block[1] ?? "";
    if (!/<ownershipDocument[\s>]/.test(xml)) continue;
    const start = block.index + block[0].indexOf(xml);
    const firstLine = text.slice(0, start).split("\n").length;
    filings.push(parseOwnershipDocument(xml, file, { accessionNumber, firstLine }));
  }
  if (filings.length === 0) throw new ImportError(file, null, "no <XML> block with an <ownershipDocument>");
  return filings;
}

/**
 * The EDGAR accession number (`0000320193-22-000061`) in a file name, else the folder EDGAR
 * keeps a filing's documents in (`.../000032019322000061/wf-form4_1.xml`), or null.
 */
export function accessionFromFileName(file: string): string | null {
  const parts = file.split(/[\\/]/);
  const named = /\d{10}-\d{2}-\d{6}/.exec(parts.at(-1) ?? file)?.[0];
  if (named) return named;
  const folder = parts
    .slice(0, -1)
    .reverse()
    .find((p) => /^\d{18}$/.test(p));
  return folder ? `${folder.slice(0, 10)}-${folder.slice(10, 12)}-${folder.slice(12)}` : null;
}

/** A CIK as 10 digits with leading zeros; null when absent or not a number. */
function padCik(text: string | null): string | null {
  if (text === null || !/^\d{1,10}$/.test(text)) return null;
  return text.padStart(10, "0");
}

function required<T>(source: XmlSource, node: XmlNode, value: T | null, name: string): T {
  if (value === null) throw new ImportError(source.file, lineOf(source, node), `missing <${name}>`);
  return value;
}

function readIssuer(source: XmlSource, doc: XmlNode): OwnershipFiling["issuer"] {
  const raw = textAt(doc, "issuer", "issuerCik");
  const cik = padCik(raw);
  if (cik === null) {
    throw new ImportError(source.file, lineOf(source, doc), `issuer/issuerCik: "${raw ?? ""}" is not a CIK`);
  }
  return {
    cik,
    name: textAt(doc, "issuer", "issuerName"),
    tradingSymbol: textAt(doc, "issuer", "issuerTradingSymbol")?.toUpperCase() ?? null,
  };
}

function readOwner(node: XmlNode): ReportingOwner {
  const relationship = (flag: string): boolean => flagAt(node, "reportingOwnerRelationship", flag);
  return {
    cik: padCik(textAt(node, "reportingOwnerId", "rptOwnerCik")),
    name: textAt(node, "reportingOwnerId", "rptOwnerName") ?? "",
    isDirector: relationship("isDirector"),
    isOfficer: relationship("isOfficer"),
    isTenPercentOwner: relationship("isTenPercentOwner"),
    isOther: relationship("isOther"),
    officerTitle: textAt(node, "reportingOwnerRelationship", "officerTitle"),
    otherText: textAt(node, "reportingOwnerRelationship", "otherText"),
  };
}

function latestSignatureDate(source: XmlSource, doc: XmlNode): string | null {
  const dates = nodesAt(doc, "ownerSignature")
    .map((node) => dateAt(source, node, ["signatureDate"]))
    .filter((date): date is string => date !== null)
    .sort();
  return dates.at(-1) ?? null;
}

function readTransaction(
  source: XmlSource,
  node: XmlNode,
  ownerName: string,
  ownerTitleText: string,
): OwnershipTransaction {
  const shares = numberAt(source, node, ["transactionAmounts", "transactionShares"]);
  const price = numberAt(source, node, ["transactionAmounts", "transactionPricePerShare"]);
  const code = textAt(node, "transactionCoding", "transactionCode")?.toUpperCase() ?? null;
  const direction = textAt(node, "transactionAmounts", "transactionAcquiredDisposedCode")?.toUpperCase();
  return {
    transaction_date: required(source, node, dateAt(source, node, ["transactionDate"]), "transactionDate"),
    transaction_code: required(source, node, code, "transactionCode"),
    shares,
    price,
    value: shares === null || price === null ? null : Math.round(shares * price * 100) / 100,
    owner_name: ownerName,
    owner_title: ownerTitleText,
    acquired_disposed: direction === "A" || direction === "D" ? direction : null,
    shares_owned_after: numberAt(source, node, ["postTransactionAmounts", "sharesOwnedFollowingTransaction"]),
    security_title: textAt(node, "securityTitle"),
  };
}
