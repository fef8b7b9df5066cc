/** The no-agent agent: a think evaluates to `{ "__think_prompt": <the rendered prompt> }`. */
import type { Agent, ThinkReply, ThinkRequest } from "../ports.js";

export class NoAgent implements Agent {
  think(request: ThinkRequest): ThinkReply {
    return { kind: "value", value: { __think_prompt: request.prompt } };
  }
}
