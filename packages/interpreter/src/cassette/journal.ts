/**
 * The cassette as an append-only journal (docs/decisions/0013-cassette-journal.md): each think's
 * entry is written to the cassette file the moment the think ends, so a run killed at any point
 * loses at most the thinks under way. The file is always the cassette format itself (what
 * `formatCassette` writes): a new entry overwrites the closing `]}` with `,` + the entry + `]}`
 * in one write. A write cut by a kill leaves a file `readCassetteText` reads up to its last whole
 * entry. The file is flushed to disk (fsync) at most a second after each entry and when the run
 * ends; at the end of a complete run it is rewritten whole, in think start order (the same bytes
 * as a run never interrupted).
 */
import { closeSync, fstatSync, fsyncSync, openSync, writeSync } from "node:fs";
import { writeFileAtomic } from "../write-file.js";
import type { PwEvent } from "../ports.js";
import { CASSETTE_END, cassetteHead, formatCassette, formatCassetteEntry, type Cassette, type CassetteThink } from "./format.js";
import { CassetteRecorder, sortThinks } from "./recorder.js";

/** How long an entry may stay written but not flushed to disk. */
const SYNC_MS = 1000;
const EMPTY_END = "[]\n}\n";

function keyOf(t: CassetteThink): string {
  return `${t.worker ?? "main"}#${t.think}`;
}

/** The same recorded exchange: prompt, `do` calls and answers (what a `do` printed is for readers only). */
export function sameExchange(a: CassetteThink, b: CassetteThink): boolean {
  if (a.prompt !== b.prompt || a.turns.length !== b.turns.length) return false;
  return a.turns.every((t, i) => {
    const u = b.turns[i]!;
    return t.answer === u.answer && t.repair === u.repair && t.do.length === u.do.length && t.do.every((d, j) => d.block === u.do[j]!.block);
  });
}

export class CassetteJournal {
  private fd: number | null = null;
  /** Bytes in the file, and how many of them close it (`]}` after the last entry). */
  private size = 0;
  private tail = 0;
  private readonly entries = new Map<string, CassetteThink>();
  private lastSync = 0;
  private timer: NodeJS.Timeout | undefined;

  /**
   * Starts the file with `kept` (the entries of the cassette being resumed, if any), replacing
   * what was there; `keptText`: the file's text `kept` was read from, whole (not cut): if the
   * file still has it and it ends as the journal writes it, entries are appended to it as it is.
   */
  constructor(
    readonly path: string,
    private readonly program: string | undefined,
    kept: readonly CassetteThink[] = [],
    keptText?: string,
  ) {
    for (const t of kept) this.entries.set(keyOf(t), t);
    if (keptText !== undefined && this.entries.size > 0 && keptText.endsWith(CASSETTE_END) && this.openAsIs(keptText)) return;
    this.rewrite(formatCassette({ version: 1, ...(program !== undefined ? { program } : {}), thinks: [...this.entries.values()] }));
  }

  /** Entries in the file. */
  get count(): number {
    return this.entries.size;
  }

  /**
   * Writes a finished think's entry. An entry already in the file with the same exchange is
   * left as it is ("kept"); one that differs is replaced (the file is rewritten).
   */
  append(entry: CassetteThink): "kept" | "new" | "replaced" {
    const key = keyOf(entry);
    const before = this.entries.get(key);
    if (before && sameExchange(before, entry)) return "kept";
    this.entries.set(key, entry);
    if (before) {
      this.rewrite(formatCassette({ version: 1, ...(this.program !== undefined ? { program: this.program } : {}), thinks: [...this.entries.values()] }));
      return "replaced";
    }
    const first = this.entries.size === 1;
    const bytes = Buffer.from(`${first ? "[\n" : ",\n"}${formatCassetteEntry(entry)}${CASSETTE_END}`, "utf8");
    const at = this.size - this.tail;
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd!, bytes, done, bytes.length - done, at + done);
    this.size = at + bytes.length;
    this.tail = CASSETTE_END.length;
    this.syncSoon();
    return "new";
  }

  /**
   * Ends the journal: with `final`, the file is rewritten as that cassette (atomically);
   * otherwise it keeps what it has. Either way it is on disk when this returns.
   */
  close(final?: Cassette): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      if (!final) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (final) writeFileAtomic(this.path, formatCassette(final));
  }

  /** The entries in the file, in file order. */
  thinks(): CassetteThink[] {
    return [...this.entries.values()];
  }

  /** Opens the file to append to it if it still has `text` (its size says so); false otherwise. */
  private openAsIs(text: string): boolean {
    let fd: number;
    try {
      fd = openSync(this.path, "r+");
    } catch {
      return false;
    }
    const size = Buffer.byteLength(text, "utf8");
    if (fstatSync(fd).size !== size) {
      closeSync(fd);
      return false;
    }
    this.fd = fd;
    this.size = size;
    this.tail = CASSETTE_END.length;
    this.lastSync = Date.now();
    return true;
  }

  private rewrite(text: string): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    writeFileAtomic(this.path, text);
    this.fd = openSync(this.path, "r+");
    this.size = Buffer.byteLength(text, "utf8");
    this.tail = this.entries.size === 0 ? EMPTY_END.length : CASSETTE_END.length;
    this.lastSync = Date.now();
  }

  private syncSoon(): void {
    const since = Date.now() - this.lastSync;
    if (since >= SYNC_MS) {
      this.sync();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => this.sync(), SYNC_MS - since);
    this.timer.unref?.();
  }

  private sync(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.lastSync = Date.now();
    if (this.fd !== null) fsyncSync(this.fd);
  }
}

/** What a recording did, for the line at the end of a resumed run. */
export interface RecordingSummary {
  /** Thinks answered from the cassette being resumed / asked live (or changed). */
  replayed: number;
  live: number;
  /** Entries in the cassette file now. */
  entries: number;
  /** Thinks of this run that ended without an answer (not kept: a resume asks them again). */
  failed: number;
}

/**
 * `--record` / `--resume` (docs/replay.md): a cassette recorder whose every finished think goes
 * to the journal at once. `replayed` is the cassette being replayed (its entries count as
 * replayed when they come back the same); `resume`: the journal is that same file, so it starts
 * with its entries.
 */
export class JournaledRecording {
  private readonly recorder: CassetteRecorder;
  private readonly journal: CassetteJournal;
  private readonly recorded = new Map<string, CassetteThink>();
  private replayed = 0;
  private live = 0;
  /** The first write that failed (a full disk): journaling stops; `finish` writes the whole file once more. */
  private writeError: Error | null = null;

  /** `keptText`: with `resume`, the text the replayed cassette was read from, if whole (the file is then appended to as it is). */
  constructor(options: { path: string; program?: string; replayed?: Cassette | null; resume?: boolean; keptText?: string }) {
    for (const t of options.replayed?.thinks ?? []) this.recorded.set(keyOf(t), t);
    this.journal = options.resume
      ? new CassetteJournal(options.path, options.program, options.replayed?.thinks ?? [], options.keptText)
      : new CassetteJournal(options.path, options.program);
    this.recorder = new CassetteRecorder(options.program, (entry) => this.entry(entry));
  }

  get path(): string {
    return this.journal.path;
  }

  /** Feed every event of the run, in order. */
  handle(event: PwEvent): void {
    this.recorder.handle(event);
  }

  /**
   * After the run. A complete run (`complete`: it ended without error or cancellation) leaves
   * exactly its own thinks, in start order; any other keeps every entry the file has, this
   * run's first.
   */
  finish({ complete }: { complete: boolean }): RecordingSummary {
    const run = this.recorder.cassette();
    if (!complete) {
      const ran = new Set(run.thinks.map(keyOf));
      run.thinks = sortThinks([...run.thinks, ...this.journal.thinks().filter((t) => !ran.has(keyOf(t)))]);
    }
    // After a failed write the final rewrite is tried anyway; if it fails too, its error is thrown.
    this.journal.close(run);
    return { replayed: this.replayed, live: this.live, entries: run.thinks.length, failed: this.recorder.failed };
  }

  private entry(entry: CassetteThink): void {
    const before = this.recorded.get(keyOf(entry));
    if (before && sameExchange(before, entry)) this.replayed++;
    else this.live++;
    if (this.writeError) return;
    try {
      this.journal.append(entry);
    } catch (error) {
      this.writeError = error instanceof Error ? error : new Error(String(error));
    }
  }
}
