/**
 * Low-level readers over the object tree fast-xml-parser builds from an SEC ownership
 * document. SEC ownership XML wraps most data points in `<value>` (next to optional
 * `<footnoteId>`), but some filers write the text directly in the element; every reader
 * here accepts both. Leaf values arrive as strings (the parser runs with
 * `parseTagValue: false`) so CIKs keep their leading zeros and numbers are parsed once,
 * here, with an error that names the file and line.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { ImportError } from "../errors.ts";
import { dateRangeProblem, shown } from "./value-readers.ts";

/** An element with child elements, as fast-xml-parser returns it. */
export type XmlNode = { [key: string]: unknown };

/** Where a document came from, so that record-level errors can name `file:line`. */
export interface XmlSource {
  readonly file: string;
  readonly xml: string;
  /** The file's line on which `xml` starts (1 unless it is a block inside a larger file). */
  readonly firstLine?: number;
}

/** Elements that may repeat; the parser always returns them as arrays. */
const REPEATED = new Set(["reportingOwner", "nonDerivativeTransaction", "ownerSignature"]);

const PARSER = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  captureMetaData: true,
  isArray: (tagName) => REPEATED.has(tagName),
});

// fast-xml-parser declares the return type as the wrapper object `Symbol`; it is a symbol primitive.
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;

/**
 * A document type declaration, the only place XML declares entities. SEC ownership documents
 * never carry one; refusing it before parsing means the parser never learns an entity beyond
 * XML's five predefined ones, so none is expanded (a billion laughs) or fetched (an external one).
 */
const DECLARATION = /<!(DOCTYPE|ENTITY)/i;

/**
 * Checks well-formedness and parses. Throws ImportError with the validator's line
 * number when the text is not well-formed XML, at the line of a DOCTYPE or ENTITY
 * declaration (refused), and when the parser fails (at the document's first line in a larger
 * file).
 */
export function parseXml(source: XmlSource): XmlNode {
  const declaration = DECLARATION.exec(source.xml);
  if (declaration) {
    throw new ImportError(
      source.file,
      lineAt(source, declaration.index),
      "a DOCTYPE or ENTITY declaration (refused: SEC ownership documents carry none)",
    );
  }
  const result = XMLValidator.validate(source.xml);
  if (result !== true) {
    const line = Number.isInteger(result.err.line) ? result.err.line + (source.firstLine ?? 1) - 1 : null;
    throw new ImportError(source.file, line, `malformed XML: ${result.err.msg}`);
  }
  let parsed: unknown;
  try {
    parsed = PARSER.parse(source.xml);
  } catch (error) {
    // Past the validator, the parser still has limits of its own (nesting depth).
    const message = error instanceof Error ? error.message : String(error);
    throw new ImportError(source.file, source.firstLine ?? null, `malformed XML: ${message}`, {
      cause: error,
    });
  }
  if (!isNode(parsed)) throw new ImportError(source.file, null, "malformed XML: no root element");
  return parsed;
}

/** True for an element object (not text, not a repeated-element array). */
export function isNode(value: unknown): value is XmlNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The child element at `path`, or undefined. A repeated element yields its first occurrence. */
function childAt(node: XmlNode, ...path: string[]): unknown {
  let current: unknown = node;
  for (const key of path) {
    const here = Array.isArray(current) ? current[0] : current;
    if (!isNode(here)) return undefined;
    current = here[key];
  }
  return current;
}

/** The nodes of a repeated element at `path` (empty when absent). */
export function nodesAt(node: XmlNode, ...path: string[]): XmlNode[] {
  const found = childAt(node, ...path);
  const list = Array.isArray(found) ? found : [found];
  return list.filter(isNode);
}

/**
 * Trimmed text of the element at `path`, taking `<value>` when the element wraps one.
 * Empty text and an element holding only a footnote give null.
 */
export function textAt(node: XmlNode, ...path: string[]): string | null {
  return textOf(childAt(node, ...path));
}

function textOf(value: unknown): string | null {
  const single = Array.isArray(value) ? value[0] : value;
  if (typeof single === "string" || typeof single === "number") {
    const text = String(single).trim();
    return text === "" ? null : text;
  }
  if (isNode(single) && "value" in single) return textOf(single.value);
  return null;
}

/** 1-based line on which `node` starts in the source, or null if unknown. */
export function lineOf(source: XmlSource, node: XmlNode): number | null {
  // The metadata lives under a symbol key that the XmlNode index type does not cover.
  const meta = (node as Record<symbol, { startIndex?: number } | undefined>)[META];
  const start = meta?.startIndex;
  return start === undefined ? null : lineAt(source, start);
}

/** 1-based line of the character at `index` of the source. */
function lineAt(source: XmlSource, index: number): number {
  let line = source.firstLine ?? 1;
  for (let i = source.xml.indexOf("\n"); i !== -1 && i < index; i = source.xml.indexOf("\n", i + 1)) line++;
  return line;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The number at `path` (commas and whitespace removed), null when absent or
 * footnote-only. Text that is present but not a number is an ImportError, never a guess.
 */
export function numberAt(source: XmlSource, node: XmlNode, path: string[]): number | null {
  const text = textAt(node, ...path);
  if (text === null) return null;
  const cleaned = text.replace(/[,\s]/g, "");
  if (!NUMBER.test(cleaned)) {
    throw new ImportError(source.file, lineOf(source, node), `${path.join("/")}: "${text}" is not a number`);
  }
  return Number(cleaned);
}

/** `YYYY-MM-DD` at `path`; SEC dates may carry a time-zone suffix (`2011-02-18-05:00`), dropped here. */
export function dateAt(source: XmlSource, node: XmlNode, path: string[]): string | null {
  const text = textAt(node, ...path);
  if (text === null) return null;
  const match = /^(\d{4}-\d{2}-\d{2})(?:$|[TZ+-])/.exec(text);
  if (!match?.[1]) {
    throw new ImportError(
      source.file,
      lineOf(source, node),
      `${path.join("/")}: ${shown(text)} is not a date`,
    );
  }
  const problem = dateRangeProblem(match[1], "recorded");
  if (problem !== null)
    throw new ImportError(source.file, lineOf(source, node), `${path.join("/")}: ${match[1]} ${problem}`);
  return match[1];
}

/** Ownership flags are written `1`/`0` in older schemas and `true`/`false` in newer ones. */
export function flagAt(node: XmlNode, ...path: string[]): boolean {
  const text = textAt(node, ...path)?.toLowerCase();
  return text === "1" || text === "true";
}
