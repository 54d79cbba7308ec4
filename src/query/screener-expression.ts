/**
 * The screener's `where` expression (docs/api.md, "Screener"): a hand-written recursive-descent
 * parser over a small grammar, into a tree that `query/screener.ts` turns into SQL with every
 * value a bound parameter. Column names come only from the allow-list the caller passes (the
 * typed columns); anything else is an `ExpressionError` giving the position and what was
 * expected there.
 *
 *   expression := conjunction ("or" conjunction)*
 *   conjunction := term ("and" term)*
 *   term       := "(" expression ")" | column comparator value | column "is" ["not"] "null"
 *   comparator := "<" | "<=" | ">" | ">=" | "=" | "!="
 *   value      := number (e.g. 15, -0.5, 1e9) | 'text' | "text" (a quote doubled inside)
 *
 * Keywords and column names are case-insensitive. A number goes with a numeric column, a text
 * with a text column, a `YYYY-MM-DD` text with a date column.
 */
import type { ColumnType } from "../snapshot/tables.ts";

/** Longest expression, in characters. */
export const MAX_EXPRESSION_LENGTH = 1000;
/** Most comparisons (and `is null` tests) in one expression. */
export const MAX_TERMS = 32;
/** Deepest nesting of parentheses. */
export const MAX_DEPTH = 8;

export type Comparator = "<" | "<=" | ">" | ">=" | "=" | "!=";

/** A parsed expression. */
export type Expression =
  | { type: "and"; terms: Expression[] }
  | { type: "or"; terms: Expression[] }
  | { type: "compare"; column: string; comparator: Comparator; value: number | string }
  | { type: "null"; column: string; negated: boolean };

/** A `where` the grammar does not accept: where (1-based character) and what was expected. */
export class ExpressionError extends Error {
  constructor(
    readonly position: number,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`at character ${position}: expected ${expected}, found ${found}`);
    this.name = "ExpressionError";
  }
}

type TokenType = "word" | "number" | "text" | "comparator" | "(" | ")" | "end";

interface Token {
  type: TokenType;
  text: string;
  /** The value of a number or text token. */
  value: number | string;
  /** 1-based character position of the token's start. */
  position: number;
}

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const COMPARATOR = /<=|>=|!=|<|>|=/y;
const SPACE = /\s*/y;

/** Splits an expression into tokens; an unknown character or an unclosed text is an error. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const match = (pattern: RegExp) => {
    pattern.lastIndex = at;
    return pattern.exec(source)?.[0] ?? null;
  };
  for (;;) {
    at += (match(SPACE) ?? "").length;
    const position = at + 1;
    if (at >= source.length) {
      tokens.push({ type: "end", text: "", value: "", position });
      return tokens;
    }
    const char = source[at] as string;
    const token = (type: TokenType, text: string, value: number | string = text) => {
      tokens.push({ type, text, value, position });
      at += text.length;
    };
    if (char === "(" || char === ")") token(char, char);
    else if (char === "'" || char === '"') token("text", ...quoted(source, at));
    else if (match(COMPARATOR) !== null) token("comparator", match(COMPARATOR) as string);
    else if (match(NUMBER) !== null) {
      const text = match(NUMBER) as string;
      token("number", text, Number(text));
    } else if (match(WORD) !== null) token("word", match(WORD) as string);
    else throw new ExpressionError(position, "a field, a comparison or a parenthesis", describe(char));
  }
}

/** A quoted text starting at `start`: its source and its value (a doubled quote is one quote). */
function quoted(source: string, start: number): [string, string] {
  const quote = source[start] as string;
  let value = "";
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] !== quote) value += source[i];
    else if (source[i + 1] === quote) {
      value += quote;
      i++;
    } else return [source.slice(start, i + 1), value];
  }
  throw new ExpressionError(start + 1, `a closing ${quote}`, "the end");
}

/** A real calendar date written YYYY-MM-DD. */
function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

function describe(text: string): string {
  return text === "" ? "the end" : JSON.stringify(text.length > 20 ? `${text.slice(0, 20)}…` : text);
}

/**
 * Parses `source` against the allow-list `columns` (name → type). Throws `ExpressionError` and
 * nothing else.
 */
export function parseExpression(source: string, columns: ReadonlyMap<string, ColumnType>): Expression {
  if (source.length > MAX_EXPRESSION_LENGTH)
    throw new ExpressionError(
      MAX_EXPRESSION_LENGTH + 1,
      `at most ${MAX_EXPRESSION_LENGTH} characters`,
      `${source.length}`,
    );
  return new Parser(tokenize(source), columns).parse();
}

class Parser {
  private next = 0;
  private terms = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly columns: ReadonlyMap<string, ColumnType>,
  ) {}

  parse(): Expression {
    const expression = this.expression();
    this.expect("end", "and, or, or the end");
    return expression;
  }

  private expression(): Expression {
    return this.joined("or", () => this.conjunction());
  }

  private conjunction(): Expression {
    return this.joined("and", () => this.term());
  }

  /** One or more `part`s joined by the keyword `word`. */
  private joined(word: "and" | "or", part: () => Expression): Expression {
    const terms = [part()];
    while (this.isWord(this.peek(), word)) {
      this.take();
      terms.push(part());
    }
    return terms.length === 1 ? (terms[0] as Expression) : { type: word, terms };
  }

  private term(): Expression {
    const token = this.peek();
    if (token.type === "(") {
      if (++this.depth > MAX_DEPTH)
        throw new ExpressionError(token.position, `at most ${MAX_DEPTH} nested parentheses`, "another");
      this.take();
      const inner = this.expression();
      this.expect(")", "a closing parenthesis, and or or");
      this.depth--;
      return inner;
    }
    if (++this.terms > MAX_TERMS)
      throw new ExpressionError(token.position, `at most ${MAX_TERMS} comparisons`, "another");
    const column = this.column();
    if (this.isWord(this.peek(), "is")) return this.nullTest(column);
    const comparator = this.expect("comparator", "a comparison (<, <=, >, >=, =, !=) or is").text;
    return { type: "compare", column, comparator: comparator as Comparator, value: this.value(column) };
  }

  private column(): string {
    const token = this.expect("word", "a field name or a parenthesis");
    const name = token.text.toLowerCase();
    if (!this.columns.has(name))
      throw new ExpressionError(
        token.position,
        "a field of the screener (docs/api.md)",
        describe(token.text),
      );
    return name;
  }

  private nullTest(column: string): Expression {
    this.take();
    const negated = this.isWord(this.peek(), "not");
    if (negated) this.take();
    const token = this.take();
    if (!this.isWord(token, "null"))
      throw new ExpressionError(token.position, negated ? "null" : "null or not null", describe(token.text));
    return { type: "null", column, negated };
  }

  /** The value compared with `column`, of the column's kind. */
  private value(column: string): number | string {
    const token = this.take();
    const type = this.columns.get(column);
    if (type === "DOUBLE" || type === "BIGINT" || type === "INTEGER") {
      if (token.type !== "number")
        throw new ExpressionError(token.position, "a number", describe(token.text));
      if (!Number.isFinite(token.value))
        throw new ExpressionError(token.position, "a finite number", describe(token.text));
      return token.value;
    }
    if (token.type !== "text")
      throw new ExpressionError(
        token.position,
        type === "DATE" ? "a quoted date" : "a quoted text",
        describe(token.text),
      );
    if (type === "DATE" && !isCalendarDate(token.value as string))
      throw new ExpressionError(token.position, "a date written 'YYYY-MM-DD'", describe(token.text));
    return token.value;
  }

  private isWord(token: Token, word: string): boolean {
    return token.type === "word" && token.text.toLowerCase() === word;
  }

  private expect(type: TokenType, expected: string): Token {
    const token = this.take();
    if (token.type !== type) throw new ExpressionError(token.position, expected, describe(token.text));
    return token;
  }

  private peek(): Token {
    return this.tokens[this.next] as Token;
  }

  /** The next token; the last (`end`) is never passed. */
  private take(): Token {
    const token = this.peek();
    if (token.type !== "end") this.next++;
    return token;
  }
}
