// Properties of the final-answer rule over random turns (message chunks with or without ids,
// tool calls in between): a preamble, an id-less notice or anything said before the last tool
// call never reaches the value; and do failures are errors unless a later run of the block succeeded.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TurnRecord } from "../dist/acp/turn-record.js";

type Step = { kind: "text"; id: string | null } | { kind: "tool" };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), id: fc.option(fc.constantFrom("m1", "m2", "m3"), { nil: null }) }),
  fc.constant({ kind: "tool" as const }),
);

describe("the final answer", () => {
  it("is only chunks after the last tool call, of one message (the last id), never an id-less chunk when ids are used", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), fc.boolean(), (steps, usesIds) => {
        const record = new TurnRecord();
        const said: { marker: string; id: string | null; afterLastTool: boolean; notice: boolean }[] = [];
        const lastTool = steps.map((s) => s.kind).lastIndexOf("tool");
        steps.forEach((s, i) => {
          if (s.kind === "tool") return record.toolCall();
          const marker = `<${i}>`;
          const notice = record.text(marker, s.id, usesIds);
          said.push({ marker, id: s.id, afterLastTool: i > lastTool, notice });
        });
        const answer = record.answer();
        const inAnswer = said.filter((c) => answer.includes(c.marker));
        for (const c of inAnswer) {
          expect(c.afterLastTool).toBe(true);
          expect(c.notice).toBe(false);
        }
        expect(new Set(inAnswer.map((c) => c.id)).size).toBeLessThanOrEqual(1);
        const withIds = said.filter((c) => c.id !== null && !c.notice);
        if (withIds.length > 0) {
          expect(said.filter((c) => c.id === null && answer.includes(c.marker))).toEqual([]);
          const last = withIds[withIds.length - 1]!;
          if (last.afterLastTool) expect(answer.includes(last.marker)).toBe(true);
        } else if (!usesIds) {
          // No ids at all: everything after the last tool call, in order.
          expect(answer).toBe(said.filter((c) => c.afterLastTool).map((c) => c.marker).join(""));
        }
      }),
    );
  });
});

describe("do outcomes", () => {
  it("a failure is an error unless the same block (any block, for an unknown number) later ran successfully", () => {
    const event = fc.record({ index: fc.nat(3), ok: fc.boolean(), unknown: fc.boolean() });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (events) => {
        const record = new TurnRecord();
        events.forEach((e, i) => record.ran(e.index, e.ok ? { ok: true } : { ok: false, error: `failure ${i}`, unknown: e.unknown }));
        const { errors, recovered } = record.outcome();
        events.forEach((e, i) => {
          if (e.ok) return;
          const later = events.slice(i + 1).some((l) => l.ok && (e.unknown || l.index === e.index));
          const where = later ? recovered : errors;
          expect(where.map((f) => f.reason)).toContain(`failure ${i}`);
        });
        expect(errors.length + recovered.length).toBe(events.filter((e) => !e.ok).length);
      }),
    );
  });
});
