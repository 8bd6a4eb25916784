import { redactUrlSecrets } from "./url-secrets";

/**
 * A thrown value in words, for logs. Most Worker logs name the error only (`errorName`): a
 * message can carry an address or a provider's answer that does not belong in a log.
 */
export const errorName = (err: unknown): string => (err instanceof Error ? err.name : "error");

/** The error's message, or the thrown value itself, with any credential in a URL in it redacted. */
export const errorText = (err: unknown): string => redactUrlSecrets(err instanceof Error ? err.message : String(err));
