/**
 * The formatter on a thread of its own: formatting a large document takes hundreds of
 * milliseconds in one go (the formatter lays out the whole file), which on the server's
 * thread would hold up every other request. Started by path (formatter.ts).
 */
import { parentPort } from "node:worker_threads";
import { format } from "@patchwork/parser";

export interface FormatJob {
  id: number;
  text: string;
}

export interface FormatDone {
  id: number;
  /** The formatted text, or null when the text does not parse. */
  text: string | null;
}

parentPort!.on("message", (job: FormatJob) => {
  let text: string | null = null;
  try {
    const r = format(job.text);
    text = r.ok ? r.text : null;
  } catch {
    text = null;
  }
  parentPort!.postMessage({ id: job.id, text } satisfies FormatDone);
});
