/** Serves until the server closes (its client went away), or until SIGTERM or SIGINT closes it. */
export async function untilClosed(server: { closed: Promise<unknown>; close(): unknown }): Promise<void> {
  const stop = () => void server.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  try {
    await server.closed;
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
}
