/** The nodes of the run tree (model.ts builds it; bound.ts keeps it bounded; the views draw it). */
import type { UsageFigures } from "@patchwork/agent";

export interface ThinkNode {
  kind: "think";
  id: number;
  mode: "think" | "ask";
  at: string;
  prompt: string;
  start: number;
  durationMs: number | null;
  ok: boolean | null;
  reply: string | null;
  error: string | null;
  repairs: number;
  /** Times the think was asked again after a transient failure (`think-retry` records), and the last reason. */
  retries?: { count: number; reason: string };
  usage: UsageFigures | null;
  children: TreeNode[];
  omitted?: OmittedNode;
  /** Left out while unfinished: its end updates that summary. */
  omittedInto?: OmittedNode;
}

export interface DoNode {
  kind: "do";
  id: number;
  think: number;
  index: number;
  start: number;
  durationMs: number | null;
  ok: boolean | null;
  output: string | null;
  error: string | null;
  children: TreeNode[];
  omitted?: OmittedNode;
  omittedInto?: OmittedNode;
}

export interface ShellNode {
  kind: "shell";
  command: string;
  status: number;
  start: number;
  durationMs: number | null;
}

export interface NoteNode {
  kind: "note";
  severity: "error" | "warning";
  text: string;
  start: number;
}

/** A `for` loop (or a delegate task list): where, how many items, how many done, how long. */
export interface LoopNode {
  kind: "loop";
  /** `loop at FILE:LINE`, `delegate of 3 tasks`. */
  what: string;
  total: number | null;
  done: number | null;
  start: number;
  durationMs: number | null;
  ok: boolean | null;
}

export type TreeNode = ThinkNode | DoNode | ShellNode | NoteNode | LoopNode | OmittedNode;

export interface OmittedNode {
  kind: "omitted";
  /** Nodes left out here (siblings), and everything under them. */
  count: number;
  thinks: number;
  dos: number;
  shells: number;
  notes: number;
  /** Failed thinks and `do` calls, commands that exited non-zero, error notes. */
  failed: number;
  /** Left out before they ended (and not ended since). */
  unfinished: number;
  /** The time the left-out nodes span (ms since the run started). */
  start: number;
  end: number;
}

export interface Container {
  children: TreeNode[];
  omitted?: OmittedNode;
}
