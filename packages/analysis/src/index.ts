/**
 * @patchwork/analysis: static analysis of Patchwork modules (name resolution, static checks,
 * symbols, hover text, completion), one library for `patchwork check`, the language server
 * and the formatter's callers. It answers questions on plain data (offsets and strings);
 * protocols convert positions and messages.
 */
export { CHECKS, findingMessage } from "./codes.js";
export type { CheckCode, Finding } from "./codes.js";
export { unitFacts } from "./facts.js";
export type { Decl, DeclKind, MemberRef, Ref, ScopeRange, UnitFacts } from "./facts.js";
export { ModuleIndex, importSource, isBuiltin } from "./combine.js";
export type { Target, TopDecl, Unit } from "./combine.js";
export { CachingResolver, exportsOf, modulePath, readFromDisk } from "./imports.js";
export type { ImportResolver, ModuleInfo, ModuleSource } from "./imports.js";
export { AnalysisDocument, checkSource } from "./document.js";
export type { BuildControl, Chunk, DocumentOptions, OffsetDiagnostic } from "./document.js";
export { builtinSignature, definition, documentSymbols, hover, references, rename, walk } from "./ide.js";
export type { DocumentSymbol, Location, Range, SymbolKind } from "./ide.js";
export { completion } from "./completion.js";
export type { CompletionItem, CompletionKind } from "./completion.js";
export { SEMANTIC_TYPES, foldingRanges, prepareQueries, semanticTokens } from "./views.js";
export type { SemanticToken, SemanticType } from "./views.js";
export { BUILTIN_DOCS, KEYWORDS } from "./docs.js";
export { workspaceDefinition, workspacePrepareRename, workspaceReferences, workspaceRename } from "./workspace.js";
export type { FileRange, RenameResult, Workspace } from "./workspace.js";
