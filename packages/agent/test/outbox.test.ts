// The outbox of an evaluator thread (thread/outbox.ts): while the thread replays, its output and
// events leave in batches, in their order, output first; never later than BATCH_MS after the
// first held item; everything at once when not holding and after the first live think.
import { afterEach, describe, expect, it, vi } from "vitest";
import { BATCH_MS, Outbox } from "../src/thread/outbox.js";
import type { FromThread } from "../src/thread/protocol.js";

/** What left the outbox, in order: writes as `out:TEXT`, messages by their text or type. */
function outbox(): { box: Outbox; left: string[] } {
  const left: string[] = [];
  const name = (m: FromThread) => (m.type === "output" ? `msg:${m.text}` : m.type === "event" ? `event:${m.event.type}` : m.type);
  const box = new Outbox(
    (m) => left.push(m.type === "batch" ? `batch[${m.messages.map(name).join(",")}]` : name(m)),
    (text) => left.push(`out:${text}`),
  );
  return { box, left };
}
const event = (type: "think-end" | "log"): FromThread =>
  type === "log" ? { type: "event", event: { type: "log", text: "x" } } : { type: "event", event: { type: "think-end", id: 1, ok: true } as never };

describe("the outbox of an evaluator thread", () => {
  afterEach(() => vi.useRealTimers());

  it("sends everything at once when not holding", () => {
    const { box, left } = outbox();
    box.write("a\n");
    box.message({ type: "output", text: "a\n" });
    box.message(event("think-end"));
    expect(left).toEqual(["out:a\n", "msg:a\n", "event:think-end"]);
  });

  it("while holding, one write of the output then one message with the rest, in order, at a flush", () => {
    const { box, left } = outbox();
    box.hold();
    for (const line of ["1\n", "2\n", "3\n"]) {
      box.message({ type: "output", text: line });
      box.write(line);
      box.message(event("think-end"));
    }
    expect(left).toEqual([]);
    box.flush();
    expect(left).toEqual(["out:1\n2\n3\n", "batch[msg:1\n,event:think-end,msg:2\n,event:think-end,msg:3\n,event:think-end]"]);
    box.flush(); // nothing held: nothing sent
    expect(left).toHaveLength(2);
  });

  it("flushes once the first held item has waited BATCH_MS (as items come, or at a tick)", () => {
    vi.useFakeTimers();
    const { box, left } = outbox();
    box.hold();
    box.write("a\n");
    vi.advanceTimersByTime(BATCH_MS - 1);
    box.write("b\n");
    expect(left).toEqual([]);
    vi.advanceTimersByTime(1);
    box.write("c\n"); // due now: everything held so far goes, this item included
    expect(left).toEqual(["out:a\nb\nc\n"]);
    box.message(event("think-end"));
    vi.advanceTimersByTime(BATCH_MS);
    expect(left).toHaveLength(1); // (no timer: the thread is busy running the program)
    box.tick();
    expect(left).toEqual(["out:a\nb\nc\n", "event:think-end"]);
  });

  it("flushes a large batch at once, whatever the time", () => {
    const { box, left } = outbox();
    box.hold();
    const line = "x".repeat(1000) + "\n";
    for (let i = 0; i < 100; i++) box.write(line);
    expect(left.length).toBeGreaterThan(0);
    expect(left.join("").length).toBeGreaterThan(64 * 1024);
  });

  it("stops holding for good at a live think, after sending what it held", () => {
    const { box, left } = outbox();
    box.hold();
    box.write("replayed\n");
    box.message(event("think-end"));
    box.stopHolding();
    expect(left).toEqual(["out:replayed\n", "event:think-end"]);
    box.write("live\n");
    box.message(event("think-end"));
    expect(left).toEqual(["out:replayed\n", "event:think-end", "out:live\n", "event:think-end"]);
  });
});
