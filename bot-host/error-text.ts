/** An error's message, or the thrown value in words: how the bot host logs and reports a failure. */
export function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
