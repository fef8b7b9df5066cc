/** Reading acpx's `--format json` output: the ACP messages it prints, one a line. */

type Message = { method?: string; params?: { update?: { sessionUpdate?: string; content?: { text?: string } } } };

/** The agent_message_chunk texts of acpx's `--format json` output. */
export function said(stdout: string): string {
  let text = "";
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    const m = JSON.parse(line) as Message;
    if (m.method === "session/update" && m.params?.update?.sessionUpdate === "agent_message_chunk") text += m.params.update.content?.text ?? "";
  }
  return text;
}
