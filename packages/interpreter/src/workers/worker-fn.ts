/** A worker item's value (docs/workers.md): apart from the other worker objects, which need the runtime. */
import { PwOpaque, type PwFunction } from "../values.js";

/** A `worker` item: called in `self.delegate([…])` it makes a task; called anywhere else it runs. */
export class PwWorkerFn extends PwOpaque {
  readonly typeName = "function";
  constructor(
    readonly fn: PwFunction,
    /** The file that declares it: a worker thread loads it from there. */
    readonly fileName: string,
  ) {
    super();
  }
  get name(): string {
    return this.fn.name;
  }
  text(): string {
    return `<worker ${this.fn.name}>`;
  }
}
