/**
 * `runWithAgent({record})`: the run with a journaled cassette recorder on its events
 * (docs/replay.md): every think's entry is written when it ends; with `resume`, the file's
 * entries (up to its last whole one) are replayed first and the rest asked live.
 */
import { readFileSync } from "node:fs";
import type { Cassette, RecordingSummary } from "@patchwork/interpreter";
import { readCassetteText, type PwEvent, type ReadCassette } from "@patchwork/interpreter/core";
import { JournaledRecording } from "@patchwork/interpreter/journal";
import type { RunEvent } from "../types.js";

/** What `recorded` uses of a run's options (run.ts's `RunWithAgentOptions`). */
interface RecordedOptions {
  fileName: string;
  replay?: { cassette: Cassette; fileName?: string };
  onEvent?: (event: RunEvent) => void;
}

/** What `recorded` uses and adds of a run's result (run.ts's `RunWithAgentResult`). */
interface RecordedResult {
  ok: boolean;
  cancelled: boolean;
  recording?: RecordingSummary & { kept: number; cut: boolean };
}

export async function recorded<Options extends RecordedOptions, Result extends RecordedResult>(
  options: Options,
  record: { path: string; resume?: boolean },
  traced: (options: Options) => Promise<Result>,
): Promise<Result> {
  let kept: ReadCassette = { cassette: { version: 1, thinks: [] }, cut: false };
  let keptText: string | undefined;
  if (record.resume) {
    let text: string | null = null;
    try {
      text = readFileSync(record.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    if (text !== null) kept = readCassetteText(text, record.path);
    if (text !== null && !kept.cut) keptText = text;
  }
  const replay = options.replay ?? (record.resume ? { cassette: kept.cassette, fileName: record.path } : undefined);
  const recording = new JournaledRecording({
    path: record.path,
    program: options.fileName,
    replayed: replay?.cassette ?? null,
    resume: Boolean(record.resume),
    ...(keptText !== undefined ? { keptText } : {}),
  });
  const onEvent = options.onEvent;
  let result: Result | undefined;
  try {
    result = await traced({
      ...options,
      ...(replay ? { replay } : {}),
      onEvent: (event) => {
        recording.handle(event as PwEvent);
        onEvent?.(event);
      },
    });
  } finally {
    const summary = recording.finish({ complete: Boolean(result?.ok && !result.cancelled) });
    if (result) result = { ...result, recording: { ...summary, kept: kept.cassette.thinks.length, cut: kept.cut } };
  }
  return result;
}

