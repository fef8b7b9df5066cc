/** Grammar rules for items and the program; the complete Patchwork parser. */
import type { ISerializedGast, IToken, Rule } from "../chevrotain.js";
import { EOF, serializeGrammar } from "../chevrotain.js";
import type { Annotation, FunDecl, FunFlavor, ImportDecl, Item, Param, Span, TopLevel, TraitDecl, TypeExpr } from "../ast.js";
import * as T from "../lexer/tokens.js";
import { installLookahead, parserTables, type ParserTables } from "../precomputed.js";
import { validateGrammar, type ParserOptions } from "./base.js";
import { StmtRules } from "./stmtRules.js";

interface Modifiers {
  annotations: Annotation[];
  exported: boolean;
  isDefault: boolean;
  start: IToken | null;
}

export class PatchworkParser extends StmtRules {
  private topLevelOrSeparator = [
    { ALT: (): TopLevel | undefined => (this.CONSUME(T.NL), undefined) },
    { ALT: (): TopLevel | undefined => (this.CONSUME(T.Semi), undefined) },
    { ALT: (): TopLevel | undefined => (this.CONSUME(T.ShellLineEnd), undefined) },
    { ALT: (): TopLevel | undefined => this.guarded(this.topLevel) },
  ];

  program = this.RULE("program", (): TopLevel[] => {
    const out: TopLevel[] = [];
    for (;;) {
      this.MANY(() => {
        const s = this.OR(this.topLevelOrSeparator);
        if (s !== undefined) out.push(s);
      });
      if (this.RECORDING_PHASE || this.LA(1).tokenType === EOF) break;
      this.skipUnexpected();
    }
    return out;
  });

  /** Items first: `type` at top level is an item (with modifiers), else a statement. */
  protected topLevel = this.RULE("topLevel", (): TopLevel =>
    this.OR({
      DEF: [
        { ALT: (): TopLevel => this.SUBRULE(this.importDecl) },
        { ALT: (): TopLevel => this.SUBRULE(this.item) },
        { ALT: (): TopLevel => this.SUBRULE(this.statement) },
      ],
      IGNORE_AMBIGUITIES: true,
      MAX_LOOKAHEAD: 1,
    }),
  );

  protected item = this.RULE("item", (): Item => {
    const annotations: Annotation[] = [];
    let start: IToken | null = null;
    this.MANY(() => {
      annotations.push(this.SUBRULE(this.annotation));
      this.MANY2(() => this.CONSUME(T.NL));
    });
    const exported = this.OPTION(() => this.CONSUME(T.Export));
    const isDefault = this.OPTION2(() => this.CONSUME(T.Default));
    if (!this.RECORDING_PHASE) {
      start = exported ?? isDefault ?? null;
    }
    const mods: Modifiers = { annotations, exported: exported !== undefined, isDefault: isDefault !== undefined, start };
    return this.OR([
      { ALT: (): Item => this.SUBRULE(this.funDecl, { ARGS: [mods] }) },
      { ALT: (): Item => this.SUBRULE(this.traitDecl, { ARGS: [mods] }) },
      {
        ALT: (): Item => {
          const decl = this.SUBRULE(this.typeDecl);
          if (this.RECORDING_PHASE) return null as never;
          return { ...decl, annotations, exported: mods.exported, isDefault: mods.isDefault, span: this.itemSpan(mods, decl.span.start.offset, decl.span.end.offset) };
        },
      },
    ]);
  });

  private itemSpan(mods: Modifiers, start: number, end: number): Span {
    const first = mods.annotations[0]?.span.start.offset ?? (mods.start ? mods.start.startOffset : start);
    return this.span(Math.min(first, start), end);
  }

  /** `@name`, `@name arg` or `@name "arg"`. */
  protected annotation = this.RULE("annotation", (): Annotation => {
    const at = this.CONSUME(T.At);
    const name = this.CONSUME(T.AnyName);
    let end = this.RECORDING_PHASE ? 0 : this.tokEnd(name);
    let arg: string | null = null;
    this.OPTION(() => {
      this.OR([
        {
          ALT: () => {
            const t = this.CONSUME(T.Ident);
            if (!this.RECORDING_PHASE) {
              arg = t.image;
              end = this.tokEnd(t);
            }
          },
        },
        {
          ALT: () => {
            const s = this.SUBRULE(this.plainString);
            if (!this.RECORDING_PHASE) {
              arg = s.value;
              end = s.span.end.offset;
            }
          },
        },
      ]);
    });
    if (this.RECORDING_PHASE) return null as never;
    return { kind: "Annotation", name: name.image, arg, span: this.span(at.startOffset, end) };
  });

  protected funFlavor = this.RULE("funFlavor", (): IToken =>
    this.OR([
      { ALT: () => this.CONSUME(T.Fun) },
      { ALT: () => this.CONSUME(T.Worker) },
      { ALT: () => this.CONSUME(T.Skill) },
      { ALT: () => this.CONSUME(T.Task) },
    ]),
  );

  protected funDecl = this.RULE("funDecl", (mods: Modifiers): FunDecl => {
    const kw = this.SUBRULE(this.funFlavor);
    const name = this.CONSUME(T.Ident);
    this.CONSUME(T.LParen);
    const params: Param[] = [];
    this.OPTION(() => {
      params.push(this.SUBRULE(this.param));
      this.MANY(() => {
        this.CONSUME(T.Comma);
        params.push(this.SUBRULE2(this.param));
      });
      this.OPTION2(() => this.CONSUME2(T.Comma));
    });
    this.CONSUME(T.RParen);
    let returnType: TypeExpr | null = null;
    this.OPTION3(() => {
      this.CONSUME(T.Colon);
      returnType = this.SUBRULE(this.typeExpr);
    });
    const body = this.SUBRULE(this.block);
    if (this.RECORDING_PHASE) return null as never;
    return {
      kind: "FunDecl",
      flavor: kw.image as FunFlavor,
      name: name.image,
      params,
      returnType,
      body,
      annotations: mods.annotations,
      exported: mods.exported,
      isDefault: mods.isDefault,
      span: this.itemSpan(mods, kw.startOffset, body.span.end.offset),
    };
  });

  protected param = this.RULE("param", (): Param => {
    const name = this.OR([{ ALT: () => this.CONSUME(T.Ident) }, { ALT: () => this.CONSUME(T.Self) }]);
    let type: TypeExpr | null = null;
    this.OPTION(() => {
      this.CONSUME(T.Colon);
      type = this.SUBRULE(this.typeExpr);
    });
    if (this.RECORDING_PHASE) return null as never;
    const end = type === null ? this.tokEnd(name) : (type as TypeExpr).span.end.offset;
    return { kind: "Param", name: name.image, type, span: this.span(name.startOffset, end) };
  });

  protected traitDecl = this.RULE("traitDecl", (mods: Modifiers): TraitDecl => {
    const kw = this.CONSUME(T.Trait);
    const name = this.CONSUME(T.Ident);
    let superType: TypeExpr | null = null;
    this.OPTION(() => {
      this.CONSUME(T.Colon);
      superType = this.SUBRULE(this.typeExpr);
    });
    this.CONSUME(T.LBrace);
    const methods: FunDecl[] = [];
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(T.NL) },
        { ALT: () => this.CONSUME(T.Semi) },
        {
          ALT: () => {
            const annotations: Annotation[] = [];
            this.MANY2(() => {
              annotations.push(this.SUBRULE(this.annotation));
              this.MANY3(() => this.CONSUME2(T.NL));
            });
            methods.push(this.SUBRULE(this.funDecl, { ARGS: [{ annotations, exported: false, isDefault: false, start: null }] }));
          },
        },
      ]);
    });
    const close = this.CONSUME(T.RBrace);
    if (this.RECORDING_PHASE) return null as never;
    return {
      kind: "TraitDecl",
      name: name.image,
      superType,
      methods,
      annotations: mods.annotations,
      exported: mods.exported,
      isDefault: mods.isDefault,
      span: this.itemSpan(mods, kw.startOffset, this.tokEnd(close)),
    };
  });

  /** `{a, b,}`: the names of an import. */
  protected importNames = this.RULE("importNames", (): { names: string[]; close: IToken } => {
    this.CONSUME(T.LBrace);
    const names: string[] = [];
    this.OPTION(() => {
      names.push(this.CONSUME(T.Ident).image);
      this.MANY(() => {
        this.CONSUME(T.Comma);
        names.push(this.CONSUME2(T.Ident).image);
      });
      this.OPTION2(() => this.CONSUME2(T.Comma));
    });
    this.OPTION3(() => this.CONSUME(T.NL));
    const close = this.CONSUME(T.RBrace);
    return { names, close };
  });

  /** The four import forms (see ImportDecl). */
  protected importDecl = this.RULE("importDecl", (): ImportDecl => {
    const kw = this.CONSUME(T.Import);
    const decl = this.OR([
      {
        ALT: (): Omit<ImportDecl, "span"> & { end: number } => {
          this.CONSUME(T.Dot);
          this.CONSUME(T.Slash);
          const { names, close } = this.SUBRULE(this.importNames);
          return { kind: "Import", form: "siblings", path: [], names, source: null, end: this.RECORDING_PHASE ? 0 : this.tokEnd(close) };
        },
      },
      {
        ALT: () => {
          const { names } = this.SUBRULE2(this.importNames);
          this.CONSUME(T.From);
          const s = this.SUBRULE(this.plainString);
          if (this.RECORDING_PHASE) return null as never;
          return { kind: "Import", form: "named", path: [], names, source: s.value, end: s.span.end.offset };
        },
      },
      {
        ALT: () => {
          const first = this.CONSUME(T.Ident);
          return this.OR2([
            {
              ALT: () => {
                this.CONSUME2(T.From);
                const s = this.SUBRULE2(this.plainString);
                if (this.RECORDING_PHASE) return null as never;
                return { kind: "Import", form: "default", path: [], names: [first.image], source: s.value, end: s.span.end.offset };
              },
            },
            {
              ALT: () => {
                const path = [first.image];
                let last = first;
                this.MANY(() => {
                  this.CONSUME2(T.Dot);
                  last = this.CONSUME(T.AnyName);
                  path.push(last.image);
                });
                return { kind: "Import", form: "module", path, names: [], source: null, end: this.tokEnd(last) };
              },
            },
          ]);
        },
      },
    ]);
    if (this.RECORDING_PHASE) return null as never;
    const { end, ...rest } = decl;
    return { ...rest, span: this.span(kw.startOffset, end) } as ImportDecl;
  });

  /** The grammar was not recorded: the lookahead functions came from the build's tables. */
  private readonly fromTables: boolean;

  constructor(options: ParserOptions = {}) {
    super(options);
    const table = options.analysis === undefined || options.analysis === "auto" ? usableParserTables(new.target) : undefined;
    this.fromTables = table !== undefined && installLookahead(this, table);
    if (!this.fromTables) this.performSelfAnalysis();
  }

  /**
   * The recorded grammar. Chevrotain reads it only to word a syntax error (the expected paths
   * of NoViableAlt and EarlyExit) and to serialize the grammar; a parser built from the tables
   * records it on first request, once per process, with a parser of its own.
   */
  override getGAstProductions(): Record<string, Rule> {
    if (!this.fromTables) return super.getGAstProductions();
    recordedGrammar ??= new PatchworkParser({ analysis: "grammar" }).getGAstProductions();
    return recordedGrammar;
  }

  override getSerializedGastProductions(): ISerializedGast[] {
    return this.fromTables ? serializeGrammar(Object.values(this.getGAstProductions())) : super.getSerializedGastProductions();
  }
}

let recordedGrammar: Record<string, Rule> | undefined;

/**
 * The build's lookahead tables, unless they do not match this code or validations are asked
 * for. They are PatchworkParser's: a subclass (which may add rules) does the full analysis.
 */
function usableParserTables(parserClass: typeof PatchworkParser): ParserTables | undefined {
  return validateGrammar() || parserClass !== PatchworkParser ? undefined : parserTables(parserClass, T.allTokens);
}
