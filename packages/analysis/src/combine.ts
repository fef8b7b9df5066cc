/**
 * A module's units joined: module-level name resolution, arity, imports, duplicates and unused
 * variables. Works on the facts of its units (facts.ts), each placed at a base offset, so the
 * language server can swap the facts of one edited unit and re-run this cheap pass.
 */
import { BUILTINS, PROGRAM_ARGS, STD_MODULES, arityText } from "@patchwork/interpreter";
import type { ImportDecl } from "@patchwork/parser";
import type { Finding } from "./codes.js";
import { isActorName, type Decl, type MemberRef, type Ref, type UnitFacts } from "./facts.js";
import type { ImportResolver, ModuleInfo } from "./imports.js";

export interface Unit {
  facts: UnitFacts;
  /** Offset of the unit's text in the module's text. */
  base: number;
}

/** A module-level declaration with the unit it lives in. */
export interface TopDecl {
  decl: Decl;
  unit: number;
  base: number;
}

/** What a reference denotes. */
export type Target =
  | { kind: "decl"; decl: Decl; unit: number; base: number }
  | { kind: "builtin"; name: string }
  | { kind: "none" };

const ITEM_KINDS: ReadonlySet<string> = new Set(["fun", "worker", "skill", "task", "trait", "import"]);
const FUNCTION_KINDS: ReadonlySet<string> = new Set(["fun", "worker", "skill", "task", "method"]);

export function isBuiltin(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(BUILTINS, name);
}

export interface CombineOptions {
  fileName: string;
  resolver?: ImportResolver | undefined;
}

/** Why an import does not see a function its module declares. */
const NOT_EXPORTED = (name: string): string => `'${name}' is declared there without \`export\`: declare it \`export fun ${name}(…)\` to import it`;

export class ModuleIndex {
  /** Module-level declarations by name, in source order. */
  readonly tops = new Map<string, TopDecl[]>();
  private readonly topReads = new Map<Decl, number>();

  constructor(readonly units: readonly Unit[]) {
    units.forEach((u, i) => {
      for (const d of u.facts.decls) {
        if (!d.topLevel || d.kind === "type") continue;
        let list = this.tops.get(d.name);
        if (!list) this.tops.set(d.name, (list = []));
        list.push({ decl: d, unit: i, base: u.base });
      }
    });
  }

  /** The declaration a reference of unit `unit` denotes. */
  resolve(unit: number, r: Ref): Target {
    const u = this.units[unit]!;
    if (r.decl >= 0) return { kind: "decl", decl: u.facts.decls[r.decl]!, unit, base: u.base };
    const at = u.base + r.start;
    const list = this.tops.get(r.name);
    if (list) {
      for (const t of list) {
        if (ITEM_KINDS.has(t.decl.kind) || r.inFunction || t.base + t.decl.start < at) {
          return { kind: "decl", decl: t.decl, unit: t.unit, base: t.base };
        }
      }
    }
    if (isBuiltin(r.name)) return { kind: "builtin", name: r.name };
    return { kind: "none" };
  }

  /** Every static-check finding of the module, at module offsets. */
  check(options: CombineOptions): Finding[] {
    const out: Finding[] = [];
    this.units.forEach((u, i) => {
      for (const f of u.facts.findings) out.push({ ...f, start: f.start + u.base, end: f.end + u.base });
      for (const r of u.facts.refs) this.checkRef(i, r, out);
    });
    this.units.forEach((u) => {
      for (const imp of u.facts.imports) checkImport(imp, u.base, options, out);
    });
    this.units.forEach((u, i) => {
      for (const mr of u.facts.members) this.checkModuleMember(i, mr, options, out);
    });
    this.checkDuplicates(out);
    this.checkUnused(out);
    out.sort((a, b) => a.start - b.start);
    return out;
  }

  /**
   * `lib.helper` where `lib` is a module imported whole (`import lib from "./lib.pw"`,
   * `import ./{lib}`) that declares `helper` without `export`: PW5007 saying so (issue 35).
   */
  private checkModuleMember(unit: number, mr: MemberRef, options: CombineOptions, out: Finding[]): void {
    const objectRef = this.units[unit]!.facts.refs[mr.object];
    if (!objectRef || !options.resolver) return;
    const t = this.resolve(unit, objectRef);
    if (t.kind !== "decl" || t.decl.kind !== "import") return;
    const imp = this.units[t.unit]!.facts.imports[t.decl.importIndex];
    if (!imp || (imp.form !== "default" && imp.form !== "siblings")) return;
    const source = imp.form === "default" ? imp.source! : `./${t.decl.name}.pw`;
    const mod = options.resolver.module(source, options.fileName);
    if ("error" in mod || mod.exports.has(mr.member)) return;
    if (!mod.decls.some((d) => d.name === mr.member && ["fun", "worker", "skill", "task", "trait"].includes(d.kind))) return;
    const base = this.units[unit]!.base;
    out.push({ code: "PW5007", start: base + mr.start, end: base + mr.end, args: { module: source, name: mr.member, detail: NOT_EXPORTED(mr.member) } });
  }

  private checkRef(unit: number, r: Ref, out: Finding[]): void {
    const base = this.units[unit]!.base;
    const t = this.resolve(unit, r);
    if (t.kind === "none") {
      // `args` (the program's command-line words) exists unless a declaration hides it.
      if (r.optional || isActorName(r.name) || r.name === PROGRAM_ARGS) return;
      const later = this.tops.get(r.name)?.some((x) => x.decl.kind === "var");
      out.push({ code: "PW5001", start: base + r.start, end: base + r.end, args: { name: r.name, detail: later ? "it is declared later in the file" : "" } });
      return;
    }
    if (t.kind === "decl" && r.decl < 0 && !r.write) this.topReads.set(t.decl, (this.topReads.get(t.decl) ?? 0) + 1);
    // A worker task runs without the file's top-level statements: their variables are not there.
    if (t.kind === "decl" && r.decl < 0 && r.inWorker && t.decl.kind === "var") {
      out.push({ code: "PW5012", start: base + r.start, end: base + r.end, args: { name: r.name, worker: r.inWorker } });
    }
    if (r.argc >= 0) {
      if (t.kind === "decl" && FUNCTION_KINDS.has(t.decl.kind) && r.argc > t.decl.params) {
        out.push({ code: "PW5002", start: base + r.callStart, end: base + r.callEnd, args: { name: r.name, expected: `at most ${t.decl.params}`, actual: r.argc } });
      } else if (t.kind === "builtin") {
        const def = BUILTINS[t.name]!;
        if (r.argc < def.min || r.argc > def.max) {
          out.push({ code: "PW5002", start: base + r.callStart, end: base + r.callEnd, args: { name: r.name, expected: arityText(def.min, def.max), actual: r.argc } });
        }
      }
    }
    if (r.interpolated) {
      const what = t.kind === "builtin" ? "builtin function" : t.kind === "decl" && FUNCTION_KINDS.has(t.decl.kind) ? "function" : null;
      if (what) out.push({ code: "PW5006", start: base + r.start, end: base + r.end, args: { name: r.name, what } });
    }
  }

  private checkDuplicates(out: Finding[]): void {
    for (const [name, list] of this.tops) {
      const items = list.filter((t) => ITEM_KINDS.has(t.decl.kind));
      for (const t of items.slice(1)) out.push({ code: "PW5009", start: t.base + t.decl.start, end: t.base + t.decl.end, args: { name } });
    }
  }

  private checkUnused(out: Finding[]): void {
    for (const u of this.units) {
      for (const d of u.facts.decls) {
        if (d.kind !== "var" || d.name.startsWith("_") || d.checks) continue;
        if (d.reads + (this.topReads.get(d) ?? 0) > 0) continue;
        out.push({ code: "PW5005", start: u.base + d.start, end: u.base + d.end, args: { name: d.name } });
      }
    }
  }
}

const STD_LIST = Object.keys(STD_MODULES)
  .map((m) => `std.${m}`)
  .join(", ");

/** The source an import loads, as the interpreter spells it (modules.ts). */
export function importSource(imp: ImportDecl, name?: string): string | null {
  switch (imp.form) {
    case "module":
      return null;
    case "siblings":
      return `./${name ?? imp.names[0]}.pw`;
    default:
      return imp.source;
  }
}

function checkImport(imp: ImportDecl, base: number, options: CombineOptions, out: Finding[]): void {
  const start = base + imp.span.start.offset;
  const end = base + imp.span.end.offset;
  if (imp.form === "module") {
    const name = imp.path.join(".");
    if (imp.path[0] !== "std" || imp.path.length !== 2 || !STD_MODULES[imp.path[1]!]) {
      out.push({ code: "PW5004", start, end, args: { name, detail: `no such builtin module (there are ${STD_LIST})` } });
    }
    return;
  }
  const resolver = options.resolver;
  if (!resolver) return;
  const sources = imp.form === "siblings" ? imp.names.map((n) => `./${n}.pw`) : [imp.source!];
  for (const source of sources) {
    const mod: ModuleInfo | { error: string } = resolver.module(source, options.fileName);
    if ("error" in mod) {
      out.push({ code: "PW5004", start, end, args: { name: source, detail: mod.error } });
      continue;
    }
    if (imp.form === "named") {
      for (const name of imp.names) {
        if (mod.exports.has(name)) continue;
        // Declared there without `export` (issue 35): say so, rather than that it is not there.
        const hidden = mod.decls.some((d) => d.name === name && ["fun", "worker", "skill", "task", "trait"].includes(d.kind));
        out.push({ code: "PW5007", start, end, args: { module: source, name, detail: hidden ? NOT_EXPORTED(name) : "" } });
      }
    }
  }
}
