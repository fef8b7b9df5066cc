/**
 * Short labels of what a run's progress names: a worker task as its worker's name and
 * arguments (`categorize("a.txt", 3)`), cut at `LABEL_LENGTH` characters without writing a
 * large argument whole.
 */
import type { JsonValue, WorkerTask } from "@patchwork/interpreter";

export const LABEL_LENGTH = 60;

class Full extends Error {}

/** `worker(arg, …)`, one line, at most `max` characters (… at the cut). */
export function taskLabel(task: WorkerTask, max = LABEL_LENGTH): string {
  let out = "";
  const put = (text: string) => {
    out += text;
    if (out.length > max) throw new Full();
  };
  const walk = (v: JsonValue): void => {
    if (v === null || typeof v !== "object") put(JSON.stringify(v) ?? "null");
    else if (Array.isArray(v)) {
      put("[");
      v.forEach((x, i) => (i > 0 && put(", "), walk(x)));
      put("]");
    } else {
      put("{");
      Object.entries(v).forEach(([k, x], i) => (put(`${i > 0 ? ", " : ""}${k}: `), walk(x)));
      put("}");
    }
  };
  try {
    put(`${task.worker}(`);
    task.args.forEach((a, i) => (i > 0 && put(", "), walk(a)));
    put(")");
  } catch (e) {
    if (!(e instanceof Full)) throw e;
    out = out.slice(0, max - 1) + "…";
  }
  return out.replace(/\s+/g, " ");
}
