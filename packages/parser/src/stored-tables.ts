/** The shapes of the grammar analysis the build stores (dist/tables.js; precomputed.ts reads them). */

/** What the build stores (dist/tables.js). */
export interface Tables {
  lexer: LexerTables;
  parser: ParserTables;
}

export interface LexerTables {
  fingerprint: string;
  /** Token names, referred to by index below. */
  tokens: string[];
  /** What Chevrotain's `analyzeTokenTypes` made of each mode, in the lexer's order. */
  modes: StoredMode[];
  defaultMode: string;
  emptyGroups: string[];
}

export interface StoredMode {
  name: string;
  /** One per token of the mode (its "pattern index"). */
  configs: StoredConfig[];
  /**
   * The first-character buckets: runs of consecutive buckets that try the same patterns, as
   * [first bucket, last bucket, pattern indices in order]; buckets in no run are empty.
   */
  buckets: [number, number, number[]][];
  /** The length of Chevrotain's (sparse) bucket array. */
  bucketsLength: number;
}

/**
 * A pattern's configuration (Chevrotain's `IPatternConfig`), as a tuple: the token's index, the
 * pattern, then Chevrotain's `longerAlt`, `canLineTerminator`, `isCustom`, `short`, `group`,
 * `push`, `pop`; `null` stands for `undefined`. The pattern: a one-character string, a regexp's
 * [source, flags] (as Chevrotain rewrote it), "exec" (the token's pattern is a function, wrapped
 * as `{ exec }`) or "object" (the token's pattern object itself).
 */
export type StoredConfig = [
  token: number,
  pattern: string | [string, string],
  longerAlt: number[] | null,
  canLineTerminator: boolean,
  isCustom: boolean,
  short: number | false,
  group: string | false | null,
  push: string | null,
  pop: boolean,
];

export interface ParserTables {
  fingerprint: string;
  /** Token names, referred to by index in `lookahead`. */
  tokens: string[];
  lookahead: LookaheadEntry[];
}

/** One lookahead decision of the parser: the function Chevrotain caches under `rule`'s key + `key`. */
export interface LookaheadEntry {
  rule: string;
  /** The cache key without the rule's part: the DSL method's index | the occurrence. */
  key: number;
  /** An `OR` (else an `OPTION`, `MANY`, `AT_LEAST_ONE`, … of one alternative). */
  or: boolean;
  /** The `OR` has `GATE`s. */
  predicates: boolean;
  /** Alternatives → paths → token indices (an optional production has one alternative). */
  paths: number[][][];
}
