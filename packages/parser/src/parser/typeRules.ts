/** Grammar rules for types (`string | [T] | {k: T}`) and binding patterns. */
import type { IToken, ParserMethod } from "../chevrotain.js";
import type { ObjectTypeField, PatField, Pattern, StringLit, TypeExpr } from "../ast.js";
import * as T from "../lexer/tokens.js";
import { ParserBase } from "./base.js";
import { Codes } from "./errors.js";
import { stringValue } from "./strings.js";

export abstract class TypeRules extends ParserBase {
  /** Type = TypeAtom {"|" TypeAtom} */
  protected typeExpr = this.RULE("typeExpr", (): TypeExpr => {
    const first = this.SUBRULE(this.typeAtom);
    let types: TypeExpr[] | null = null;
    this.MANY(() => {
      this.CONSUME(T.Pipe);
      const next = this.SUBRULE2(this.typeAtom);
      if (!this.RECORDING_PHASE) (types ??= [first]).push(next);
    });
    if (this.RECORDING_PHASE || types === null) return first;
    const all: TypeExpr[] = types;
    return { kind: "UnionType", types: all, span: this.span(first.span.start.offset, all[all.length - 1]!.span.end.offset) };
  });

  private typeAtomAlts = [
    {
      ALT: (): TypeExpr => {
        const t = this.CONSUME(T.Ident);
        return this.RECORDING_PHASE ? (null as never) : { kind: "NamedType", name: t.image, span: this.tokSpan(t) };
      },
    },
    {
      ALT: (): TypeExpr => {
        const t = this.CONSUME(T.Null);
        return this.RECORDING_PHASE ? (null as never) : { kind: "NamedType", name: "null", span: this.tokSpan(t) };
      },
    },
    {
      ALT: (): TypeExpr => {
        const s = this.SUBRULE(this.plainString);
        return this.RECORDING_PHASE ? (null as never) : { kind: "LiteralType", value: s.value, span: s.span };
      },
    },
    {
      ALT: (): TypeExpr => {
        const open = this.CONSUME(T.LBracket);
        const element = this.SUBRULE(this.typeExpr);
        const close = this.CONSUME(T.RBracket);
        return this.RECORDING_PHASE ? (null as never) : { kind: "ArrayType", element, span: this.spanFrom(open, close) };
      },
    },
    { ALT: (): TypeExpr => this.SUBRULE(this.objectType) },
  ];

  protected typeAtom = this.RULE("typeAtom", (): TypeExpr => this.OR(this.typeAtomAlts));

  /** `{k: T, …}`; fields may also be separated by newlines. */
  protected objectType = this.RULE("objectType", (): TypeExpr => {
    const open = this.CONSUME(T.LBrace);
    const fields: ObjectTypeField[] = [];
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(T.NL) },
        { ALT: () => this.CONSUME(T.Comma) },
        {
          ALT: () => {
            const key = this.SUBRULE(this.propertyKey);
            this.CONSUME(T.Colon);
            const type = this.SUBRULE2(this.typeExpr);
            if (!this.RECORDING_PHASE) {
              fields.push({ kind: "ObjectTypeField", key: key.value, type, span: this.span(key.start, type.span.end.offset) });
            }
          },
        },
      ]);
    });
    const close = this.CONSUME(T.RBrace);
    return this.RECORDING_PHASE ? (null as never) : { kind: "ObjectType", fields, span: this.spanFrom(open, close) };
  });

  /** An object key: a name (keywords included) or a plain string. */
  protected propertyKey = this.RULE("propertyKey", (): { value: string; start: number; end: number; token: IToken | null } => {
    return this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.AnyName);
          return { value: t.image, start: t.startOffset, end: t.startOffset + t.image.length, token: t };
        },
      },
      {
        ALT: () => {
          const s = this.SUBRULE(this.plainString);
          return this.RECORDING_PHASE ? (null as never) : { value: s.value, start: s.span.start.offset, end: s.span.end.offset, token: null };
        },
      },
    ]);
  });

  /** A string literal without interpolation (import sources, literal types, keys). */
  protected plainString = this.RULE("plainString", () => {
    const s = this.SUBRULE(this.stringLit);
    if (this.RECORDING_PHASE) return null as never;
    const value = stringValue(s);
    if (value === null) {
      this.report(Codes.syntax, "expected a plain string here; interpolation is not allowed", s.span);
    }
    return { value: value ?? "", span: s.span };
  });

  protected abstract stringLit: ParserMethod<[], StringLit>;

  // ── patterns ──

  private patternAlts = [
    {
      ALT: (): Pattern => {
        const t = this.CONSUME(T.Ident);
        if (this.RECORDING_PHASE) return null as never;
        return t.image === "_"
          ? { kind: "WildcardPattern", span: this.tokSpan(t) }
          : { kind: "IdentPattern", name: t.image, span: this.tokSpan(t) };
      },
    },
    { ALT: (): Pattern => this.SUBRULE(this.objectPattern) },
    { ALT: (): Pattern => this.SUBRULE(this.arrayPattern) },
  ];

  protected pattern = this.RULE("pattern", (): Pattern => this.OR(this.patternAlts));

  protected objectPattern = this.RULE("objectPattern", (): Pattern => {
    const open = this.CONSUME(T.LBrace);
    const fields: PatField[] = [];
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(T.NL) },
        { ALT: () => this.CONSUME(T.Comma) },
        {
          ALT: () => {
            const key = this.SUBRULE(this.propertyKey);
            let type: TypeExpr | null = null;
            this.OPTION(() => {
              this.CONSUME(T.Colon);
              type = this.SUBRULE(this.typeExpr);
            });
            if (!this.RECORDING_PHASE) {
              const end = type === null ? key.end : (type as TypeExpr).span.end.offset;
              fields.push({ kind: "PatField", key: key.value, type, span: this.span(key.start, end) });
            }
          },
        },
      ]);
    });
    const close = this.CONSUME(T.RBrace);
    return this.RECORDING_PHASE ? (null as never) : { kind: "ObjectPattern", fields, span: this.spanFrom(open, close) };
  });

  protected arrayPattern = this.RULE("arrayPattern", (): Pattern => {
    const open = this.CONSUME(T.LBracket);
    const elements: Pattern[] = [];
    this.OPTION(() => {
      elements.push(this.SUBRULE(this.pattern));
      this.MANY(() => {
        this.CONSUME(T.Comma);
        elements.push(this.SUBRULE2(this.pattern));
      });
      this.OPTION2(() => this.CONSUME2(T.Comma));
    });
    const close = this.CONSUME(T.RBracket);
    return this.RECORDING_PHASE ? (null as never) : { kind: "ArrayPattern", elements, span: this.spanFrom(open, close) };
  });
}
