/** A mistake in the command line: reported as `patchwork: MESSAGE` plus a hint, exit status 2. */
export class UsageError extends Error {}
