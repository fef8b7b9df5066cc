/** `var` declarations: plain names, `_`, and destructuring of objects and arrays with type checks. */
import type { Pattern, VarDecl } from "@patchwork/parser";
import { raise } from "../errors.js";
import { checkAssignable } from "../types/check.js";
import type { Value } from "../values.js";
import { compileExpr, describe } from "./expr.js";
import type { Cx } from "./scope.js";
import { compileThink } from "./think.js";
import type { ExprFn, StmtFn } from "./types.js";

type Bind = (f: Value[], v: Value) => void;

export function compileVarDecl(s: VarDecl, cx: Cx): StmtFn {
  const file = cx.m.fileName;
  let init: ExprFn;
  if (!s.init) init = () => null;
  else if (s.init.kind === "Think") init = compileThink(s.init, cx, s.type ? { type: s.type, scope: cx.scope } : null);
  else init = compileExpr(s.init, cx);
  const dup = firstRedeclared(s.pattern, cx);
  if (dup) return () => raise("PW3003", dup.span, file, { name: dup.name });
  // A think's result is converted and validated by its type already (and without an agent
  // it is the `{__think_prompt}` object, which must pass through).
  const check =
    s.type && s.init?.kind !== "Think"
      ? checkAssignable(s.type, cx.scope, describeTarget(s.pattern), s.pattern.span, file)
      : null;
  if (s.pattern.kind === "IdentPattern") {
    const slot = cx.scope.declare(s.pattern.name, s.type).slot;
    if (check) {
      return (f) => {
        const v = init(f);
        check(v);
        f[slot] = v;
        return 0;
      };
    }
    return (f) => {
      f[slot] = init(f);
      return 0;
    };
  }
  const bind = compilePattern(s.pattern, cx);
  return (f) => {
    const v = init(f);
    if (check) check(v);
    bind(f, v);
    return 0;
  };
}

function describeTarget(p: Pattern): string {
  return p.kind === "IdentPattern" ? `'${p.name}'` : "the destructured value";
}

function firstRedeclared(p: Pattern, cx: Cx): { name: string; span: Pattern["span"] } | null {
  switch (p.kind) {
    case "IdentPattern":
      return cx.scope.hasOwn(p.name) ? { name: p.name, span: p.span } : null;
    case "WildcardPattern":
      return null;
    case "ObjectPattern":
      for (const fl of p.fields) if (cx.scope.hasOwn(fl.key)) return { name: fl.key, span: fl.span };
      return null;
    case "ArrayPattern":
      for (const el of p.elements) {
        const d = firstRedeclared(el, cx);
        if (d) return d;
      }
      return null;
  }
}

function compilePattern(p: Pattern, cx: Cx): Bind {
  const file = cx.m.fileName;
  switch (p.kind) {
    case "IdentPattern": {
      const slot = cx.scope.declare(p.name).slot;
      return (f, v) => {
        f[slot] = v;
      };
    }
    case "WildcardPattern":
      return () => {};
    case "ObjectPattern": {
      const fields = p.fields.map((fl) => {
        const check = fl.type ? checkAssignable(fl.type, cx.scope, `field '${fl.key}'`, fl.span, file) : null;
        const slot = cx.scope.declare(fl.key, fl.type).slot;
        return { key: fl.key, check, slot };
      });
      return (f, v) => {
        if (!(v instanceof Map)) raise("PW3013", p.span, file, { actual: describe(v), detail: "expected an object" });
        for (const fl of fields) {
          const x = v.get(fl.key);
          const val = x === undefined ? null : x;
          if (fl.check) fl.check(val);
          f[fl.slot] = val;
        }
      };
    }
    case "ArrayPattern": {
      const els = p.elements.map((el) => compilePattern(el, cx));
      return (f, v) => {
        if (!Array.isArray(v)) raise("PW3013", p.span, file, { actual: describe(v), detail: "expected an array" });
        for (let i = 0; i < els.length; i++) els[i]!(f, i < v.length ? v[i]! : null);
      };
    }
  }
}
