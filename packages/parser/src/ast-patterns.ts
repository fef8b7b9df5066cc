/**
 * The AST's patterns (`var {a, b} = …`) and type expressions (`x: string | null`), which hold
 * nothing but each other (ast.ts re-exports them: its node types are one contract).
 */
import type { NodeBase } from "./span.js";

export type Pattern = IdentPattern | WildcardPattern | ObjectPattern | ArrayPattern;

export interface IdentPattern extends NodeBase {
  kind: "IdentPattern";
  name: string;
}

export interface WildcardPattern extends NodeBase {
  kind: "WildcardPattern";
}

export interface PatField extends NodeBase {
  kind: "PatField";
  key: string;
  type: TypeExpr | null;
}

export interface ObjectPattern extends NodeBase {
  kind: "ObjectPattern";
  fields: PatField[];
}

export interface ArrayPattern extends NodeBase {
  kind: "ArrayPattern";
  elements: Pattern[];
}

export type TypeExpr = NamedType | LiteralType | ArrayType | ObjectType | UnionType;

/** `string`, `number`, `boolean`, `null`, `any`, or a user name. */
export interface NamedType extends NodeBase {
  kind: "NamedType";
  name: string;
}

export interface LiteralType extends NodeBase {
  kind: "LiteralType";
  value: string;
}

export interface ArrayType extends NodeBase {
  kind: "ArrayType";
  element: TypeExpr;
}

export interface ObjectTypeField extends NodeBase {
  kind: "ObjectTypeField";
  key: string;
  type: TypeExpr;
}

export interface ObjectType extends NodeBase {
  kind: "ObjectType";
  fields: ObjectTypeField[];
}

export interface UnionType extends NodeBase {
  kind: "UnionType";
  types: TypeExpr[];
}
