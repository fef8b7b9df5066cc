/**
 * An open document of the language server: its text, its analysis and the state of the build
 * of that analysis (server.ts keeps one per open document).
 */
import type { AnalysisDocument } from "@patchwork/analysis";
import type { TextDocument } from "vscode-languageserver-textdocument";

export interface Open {
  uri: string;
  path: string;
  td: TextDocument;
  /**
   * The analysis of `td`'s current text, or null while it is being built (opening, or an edit
   * that needs the whole text parsed again): requests on the document wait for the build.
   */
  doc: AnalysisDocument | null;
  /** Bumped by every change: a build of an older text stops at its next pause. */
  generation: number;
  /** The build under way, if any. */
  building: Promise<void> | null;
  /** Too large for live analysis: `doc` is empty. */
  tooLarge: boolean;
  /** A publish is scheduled. */
  dirty: boolean;
}
