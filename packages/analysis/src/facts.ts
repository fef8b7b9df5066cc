/**
 * Name resolution of one unit (a run of top-level items and statements): what it declares,
 * what it refers to, and the checks that need nothing outside it. Offsets are relative to the
 * unit's text, so a unit's facts stay valid when text before it changes (the language server
 * re-analyses only the units an edit touched; `combine.ts` joins the units of a module).
 *
 * The scoping rules are the interpreter's (compiler/scope.ts, modules.ts): items (functions,
 * traits, imports) are hoisted; top-level `var`s are visible to statements after them and to
 * every function body; blocks, loops, `catch` and `do` blocks open scopes; a function body
 * sees its parameters, its locals and the module's top level, nothing else.
 */
import type {
  Block,
  Expr,
  FunDecl,
  Pattern,
  PromptPart,
  ShellList,
  Stmt,
  TemplatePart,
  TopLevel,
  TypeExpr,
} from "@patchwork/parser";
import type { Decl, DeclKind, Ref, ScopeRange, UnitFacts } from "./fact-types.js";
import { settleFindings } from "./workers.js";

export type { Decl, DeclKind, MemberRef, Ref, ScopeRange, UnitFacts } from "./fact-types.js";

const ACTOR_NAMES: ReadonlySet<string> = new Set(["delegate", "mailbox", "spawn"]);

class Scope {
  readonly names = new Map<string, number>();
  readonly range: ScopeRange;
  constructor(
    readonly parent: Scope | null,
    start: number,
    end: number,
    list: ScopeRange[],
  ) {
    this.range = { start, end, decls: [] };
    list.push(this.range);
  }
}

/** Where a name is written inside a node's text (functions, for loops, catch, imports). */
function findName(text: string, name: string, from: number, to: number): number {
  const re = new RegExp(`(?<![\\w$])${name.replace(/[$]/g, "\\$")}(?![\\w$])`, "g");
  re.lastIndex = from;
  const m = re.exec(text);
  return m && m.index < to ? m.index : from;
}

class Walker {
  readonly facts: UnitFacts = { decls: [], refs: [], scopes: [], imports: [], members: [], findings: [] };
  private scope: Scope;
  private readonly top: Scope;
  private inFunction = false;
  private inWorker: string | null = null;
  private loops = 0;

  constructor(
    private readonly text: string,
    start: number,
    end: number,
  ) {
    this.top = this.scope = new Scope(null, start, end, this.facts.scopes);
  }

  // ── declarations and references ──

  private declare(name: string, kind: DeclKind, start: number, nodeStart: number, nodeEnd: number, extra: Partial<Decl> = {}): Decl {
    const d: Decl = {
      id: this.facts.decls.length,
      name,
      kind,
      start,
      end: start + name.length,
      nodeStart,
      nodeEnd,
      topLevel: this.scope === this.top,
      type: null,
      signature: null,
      params: 0,
      exported: false,
      isDefault: false,
      reads: 0,
      importIndex: -1,
      ...extra,
    };
    this.facts.decls.push(d);
    // Types live in their own namespace: a type name does not shadow a value.
    if (kind !== "type") this.scope.names.set(name, d.id);
    this.scope.range.decls.push(d.id);
    return d;
  }

  private lookup(name: string): number {
    for (let s: Scope | null = this.scope; s; s = s.parent) {
      // A function body does not see the unit's top scope directly: top-level names are
      // resolved for the whole module by combine.ts (a function sees every top-level var).
      if (s === this.top && this.inFunction) return -1;
      const id = s.names.get(name);
      if (id !== undefined) return id;
    }
    return -1;
  }

  private ref(name: string, start: number, end: number, opts: Partial<Ref> = {}): Ref {
    const decl = this.lookup(name);
    const r: Ref = {
      name,
      start,
      end,
      decl,
      inFunction: this.inFunction,
      inWorker: this.inWorker,
      optional: false,
      write: false,
      interpolated: false,
      argc: -1,
      callStart: 0,
      callEnd: 0,
      ...opts,
    };
    if (decl >= 0 && !r.write) this.facts.decls[decl]!.reads++;
    this.facts.refs.push(r);
    return r;
  }

  private slice(node: { span: { start: { offset: number }; end: { offset: number } } }): string {
    return this.text.slice(node.span.start.offset, node.span.end.offset);
  }

  private typeText(t: TypeExpr | null): string | null {
    return t ? this.slice(t) : null;
  }

  private withScope(start: number, end: number, fn: () => void): void {
    const saved = this.scope;
    this.scope = new Scope(saved, start, end, this.facts.scopes);
    try {
      fn();
    } finally {
      this.scope = saved;
    }
  }

  // ── items ──

  unit(body: readonly TopLevel[]): UnitFacts {
    // Items first (hoisted), then everything in order.
    for (const t of body) this.hoist(t);
    for (const t of body) this.topLevel(t);
    return this.facts;
  }

  private hoist(t: TopLevel): void {
    const s = t.span.start.offset;
    const e = t.span.end.offset;
    switch (t.kind) {
      case "FunDecl": {
        const at = findName(this.text, t.name, t.annotations.at(-1)?.span.end.offset ?? s, e);
        this.declare(t.name, t.flavor, at, s, e, {
          signature: this.signature(t),
          params: t.params.length,
          exported: t.exported,
          isDefault: t.isDefault,
        });
        return;
      }
      case "TraitDecl":
        this.declare(t.name, "trait", findName(this.text, t.name, s, e), s, e, { exported: t.exported, isDefault: t.isDefault });
        return;
      case "TypeDecl":
        this.declare(t.name, "type", findName(this.text, t.name, s, e), s, e, { type: this.typeText(t.type) });
        return;
      case "Import": {
        const index = this.facts.imports.length;
        this.facts.imports.push(t);
        let from = s;
        for (const name of t.names) {
          const at = findName(this.text, name, from, e);
          this.declare(name, "import", at, s, e, { importIndex: index });
          from = at + name.length;
        }
        return;
      }
    }
  }

  signature(f: FunDecl): string {
    const params = f.params.map((p) => (p.type ? `${p.name}: ${this.slice(p.type)}` : p.name)).join(", ");
    return `${f.flavor} ${f.name}(${params})${f.returnType ? ` -> ${this.slice(f.returnType)}` : ""}`;
  }

  private topLevel(t: TopLevel): void {
    switch (t.kind) {
      case "FunDecl":
        return this.fun(t);
      case "TraitDecl":
        for (const m of t.methods) {
          this.fun(m, true);
        }
        return;
      case "Import":
        return;
      case "TypeDecl":
        return;
      default:
        return this.stmt(t);
    }
  }

  private fun(f: FunDecl, method = false): void {
    const savedFn = this.inFunction;
    const savedLoops = this.loops;
    const savedWorker = this.inWorker;
    this.inFunction = true;
    this.inWorker = f.flavor === "worker" ? f.name : null;
    this.loops = 0;
    const s = f.span.start.offset;
    this.withScope(s, f.span.end.offset, () => {
      if (method) this.declare(f.name, "method", findName(this.text, f.name, s, f.body.span.start.offset), s, f.span.end.offset, { signature: this.signature(f), params: f.params.length });
      for (const p of f.params) this.declare(p.name, "param", p.span.start.offset, p.span.start.offset, p.span.end.offset, { type: this.typeText(p.type), reads: 1 });
      this.stmts(f.body.statements, f.body.span.start.offset, f.body.span.end.offset);
    });
    this.inFunction = savedFn;
    this.inWorker = savedWorker;
    this.loops = savedLoops;
  }

  // ── statements ──

  private stmts(list: readonly Stmt[], start: number, end: number): void {
    this.withScope(start, end, () => {
      for (const s of list) this.stmt(s);
    });
  }

  private block(b: Block): void {
    this.stmts(b.statements, b.span.start.offset, b.span.end.offset);
  }

  private loopBody(b: Block): void {
    this.loops++;
    this.block(b);
    this.loops--;
  }

  private stmt(s: Stmt): void {
    switch (s.kind) {
      case "VarDecl":
        if (s.init) this.expr(s.init);
        return this.pattern(s.pattern, s.span.start.offset, s.span.end.offset, this.typeText(s.type));
      case "If":
        this.expr(s.test);
        this.block(s.then);
        if (s.else) {
          if (s.else.kind === "If") this.stmt(s.else);
          else this.block(s.else);
        }
        return;
      case "For":
        this.expr(s.iterable);
        this.withScope(s.span.start.offset, s.span.end.offset, () => {
          const at = findName(this.text, s.name, s.span.start.offset + 3, s.iterable.span.start.offset);
          this.declare(s.name, "for", at, s.span.start.offset, s.span.end.offset, { reads: 1 });
          this.loopBody(s.body);
        });
        return;
      case "While":
        this.expr(s.test);
        return this.loopBody(s.body);
      case "Return":
        if (s.value) this.expr(s.value);
        return;
      case "Break":
      case "Continue":
        if (this.loops === 0) {
          const name = s.kind === "Break" ? "break" : "continue";
          this.facts.findings.push({ code: "PW5003", start: s.span.start.offset, end: s.span.end.offset, args: { name } });
        }
        return;
      case "Succeed":
        return;
      case "Try":
        this.block(s.body);
        this.withScope(s.handler.span.start.offset, s.handler.span.end.offset, () => {
          if (s.param) {
            const at = findName(this.text, s.param, s.body.span.end.offset, s.handler.span.start.offset);
            this.declare(s.param, "catch", at, at, at + s.param.length, { reads: 1 });
          }
          this.block(s.handler);
        });
        return;
      case "TypeDecl":
        this.declare(s.name, "type", findName(this.text, s.name, s.span.start.offset, s.span.end.offset), s.span.start.offset, s.span.end.offset, {
          type: this.typeText(s.type),
          reads: 1,
        });
        return;
      case "Block":
        return this.block(s);
      case "ShellStmt":
        return this.shell(s.command);
      case "ExprStmt":
        if (s.expr.kind === "Ident" && s.expr.name === "do" && this.lookup("do") < 0) {
          this.facts.findings.push({ code: "PW5008", start: s.expr.span.start.offset, end: s.expr.span.end.offset, args: {} });
          return;
        }
        return this.expr(s.expr);
    }
  }

  private pattern(p: Pattern, nodeStart: number, nodeEnd: number, type: string | null): void {
    switch (p.kind) {
      case "IdentPattern":
        this.declare(p.name, "var", p.span.start.offset, nodeStart, nodeEnd, { type });
        return;
      case "WildcardPattern":
        return;
      case "ObjectPattern":
        for (const f of p.fields) {
          const checks = f.type !== null && isLiteralType(f.type);
          this.declare(f.key, "var", f.span.start.offset, nodeStart, nodeEnd, { type: this.typeText(f.type), ...(checks ? { checks } : {}) });
        }
        return;
      case "ArrayPattern":
        for (const e of p.elements) this.pattern(e, nodeStart, nodeEnd, null);
        return;
    }
  }

  // ── expressions ──

  private expr(e: Expr, interpolated = false): void {
    switch (e.kind) {
      case "Number":
      case "Bool":
      case "Null":
      case "Self":
      case "ShellStatus":
        return;
      case "String":
        return this.template(e.parts);
      case "Ident":
        this.ref(e.name, e.span.start.offset, e.span.end.offset, { interpolated });
        return;
      case "Array":
        for (const x of e.elements) this.expr(x);
        return;
      case "Object":
        for (const p of e.properties) this.expr(p.value);
        return;
      case "Unary":
        return this.expr(e.operand);
      case "Throw":
        return this.expr(e.value);
      case "Await":
        return this.expr(e.operand);
      case "Binary":
      case "Logical":
        this.expr(e.left);
        return this.expr(e.right);
      case "Range":
        this.expr(e.start);
        return this.expr(e.end);
      case "Assign":
        this.target(e.target);
        return this.expr(e.value);
      case "Update":
        return this.target(e.target);
      case "Member":
        if (e.object.kind === "Ident") {
          this.expr(e.object);
          const end = e.span.end.offset;
          const start = end - e.property.length;
          if (this.text.slice(start, end) === e.property) this.facts.members.push({ object: this.facts.refs.length - 1, member: e.property, start, end });
          return;
        }
        return this.expr(e.object);
      case "Index":
        this.expr(e.object);
        return this.expr(e.index);
      case "Call":
        if (e.callee.kind === "Ident") {
          const c = e.callee;
          this.ref(c.name, c.span.start.offset, c.span.end.offset, { argc: e.args.length, callStart: e.span.start.offset, callEnd: e.span.end.offset });
        } else this.expr(e.callee);
        for (const a of e.args) this.expr(a);
        return;
      case "Think":
        return this.think(e.prompt, e.children);
      case "Shell":
        return this.shell(e.command);
      default:
        return this.generic(e as unknown as Record<string, unknown>);
    }
  }

  /** A node kind this walker does not know yet: its sub-expressions and shell commands. */
  private generic(node: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(node)) {
      if (k === "span" || v === null || typeof v !== "object") continue;
      for (const c of Array.isArray(v) ? v : [v]) {
        if (c === null || typeof c !== "object" || !("kind" in c)) continue;
        if ((c as { kind: string }).kind === "ShellList") this.shell(c as ShellList);
        else this.expr(c as Expr);
      }
    }
  }

  private target(t: Expr): void {
    if (t.kind === "Ident") this.ref(t.name, t.span.start.offset, t.span.end.offset, { write: true });
    else this.expr(t);
  }

  private template(parts: readonly TemplatePart[]): void {
    for (const p of parts) if (p.kind === "Interp") this.expr(p.expr, !p.spread);
  }

  private think(prompt: readonly PromptPart[], children: readonly Stmt[]): void {
    for (const p of prompt) if (p.kind === "PromptInterp") this.expr(p.expr, !p.spread);
    // A do block runs as a child of the think: it sees the enclosing names; no loop encloses it.
    const savedLoops = this.loops;
    this.loops = 0;
    for (const c of children) {
      this.withScope(c.span.start.offset, c.span.end.offset, () => {
        if (c.kind === "Block") for (const s of c.statements) this.stmt(s);
        else this.stmt(c);
      });
    }
    this.loops = savedLoops;
  }

  private shell(list: ShellList): void {
    for (const pl of [list.first, ...list.rest.map((r) => r.pipeline)]) {
      for (const cmd of pl.commands) {
        const words = [...cmd.words, ...cmd.redirects.flatMap((r) => (r.target ? [r.target] : []))];
        for (const w of words) {
          for (const part of w.parts) {
            if (part.kind !== "ShellInterp") continue;
            // `$NAME` without a Patchwork variable of that name is sh's own variable.
            if (part.expr.kind === "Ident" && !part.raw.startsWith("${") && !part.raw.startsWith("$@")) {
              this.ref(part.expr.name, part.expr.span.start.offset, part.expr.span.end.offset, { optional: true });
            } else this.expr(part.expr, !part.spread);
          }
        }
      }
    }
  }
}

/**
 * The facts of one unit. `text` is the text the spans index into; `start`/`end` bound the
 * unit (its top scope's range, for completion).
 */
export function unitFacts(body: readonly TopLevel[], text: string, start = 0, end = text.length): UnitFacts {
  const facts = new Walker(text, start, end).unit(body);
  facts.findings.push(...settleFindings(body));
  return facts;
}

export function isActorName(name: string): boolean {
  return ACTOR_NAMES.has(name);
}

/** A literal type, or a union of literals (`"done"`, `"ok" | "error"`): a pattern field with one checks the value. */
function isLiteralType(t: TypeExpr): boolean {
  return t.kind === "LiteralType" || (t.kind === "UnionType" && t.types.every(isLiteralType));
}
