/**
 * One delivery attempt of one webhook event, and the history row it leaves.
 *
 * Order of checks: the account's current settings (re-read each attempt, so a changed URL or
 * filter applies to retries), the event filter (`suppressed`), the outbound guard on an
 * account's URL (`blocked`, before any request leaves), then a POST with a timeout, signed
 * when the target has its own secret (an account URL without one gets an unsigned POST,
 * never the deployment's signature). Retryable failures (5xx, 429,
 * 408, transport errors, timeouts) are `queued` when the outbox will try again and `failed`
 * on the last try; any other answer is `failed`. Redirects are not followed: a redirect could
 * lead past the guard.
 *
 * Every attempt that had a target writes one row (host only, never the URL or the secret) and
 * the account keeps its newest 100. A row that cannot be written (D1 down) does not change the
 * outcome: the outbox in the Account DO is what must survive.
 */
import { type Clock, systemClock } from "../clock";
import type { Env } from "../env";
import { endpointAllowed, loadSettings, type ResolvedSettings, resolveSettings, webhookEventEnabled } from "../settings/account-settings";
import { type DeliveryOutcome, recordDelivery, type WebhookEvent } from "./delivery-log";
import { signWebhook } from "./signature";

export { DELIVERY_HISTORY_KEPT, type DeliveryOutcome, recordDelivery, type WebhookEvent } from "./delivery-log";
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface AttemptOptions {
	/** 1 for the first try. */
	attempt: number;
	/** Whether the outbox will try again after a retryable failure (decides queued vs failed). */
	willRetry: boolean;
	timeoutMs?: number;
	clock?: Clock;
}

export interface AttemptReport {
	/** `no_target`: the account has no webhook URL; nothing was attempted or recorded. */
	outcome: DeliveryOutcome | "no_target";
	/** True when the outbox should keep the event for another attempt. */
	retry: boolean;
	status_code: number | null;
	target_host: string | null;
	/** Whether the history row was written. */
	recorded: boolean;
}

type Target = ResolvedSettings["webhook"];

export async function attemptDelivery(env: Env, userId: number, event: WebhookEvent, options: AttemptOptions): Promise<AttemptReport> {
	const clock = options.clock ?? systemClock;
	let target: Target;
	try {
		target = (await resolveSettings(env, await loadSettings(env, userId))).webhook;
	} catch (err) {
		// Settings unreadable (D1 or the key store down): nothing to record; try again later.
		console.warn("webhook settings unavailable", userId, errorName(err));
		return {
			outcome: options.willRetry ? "queued" : "failed",
			retry: options.willRetry,
			status_code: null,
			target_host: null,
			recorded: false,
		};
	}
	if (!target.url) return { outcome: "no_target", retry: false, status_code: null, target_host: null, recorded: false };

	const host = hostOf(target.url);
	const finish = async (outcome: DeliveryOutcome, status: number | null): Promise<AttemptReport> => {
		const recorded = await recordDelivery(env.DB, userId, event, { host, outcome, status, attempt: options.attempt, clock });
		return { outcome, retry: outcome === "queued", status_code: status, target_host: host, recorded };
	};

	if (!webhookEventEnabled(target.events, event.event_type)) return finish("suppressed", null);
	if (!endpointAllowed(env, target.url, target.owner).ok) return finish("blocked", null);

	const { status, retryable } = await post(target.url, event.body, target.secret, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, clock);
	if (status !== null && status >= 200 && status < 300) return finish("delivered", status);
	return finish(retryable && options.willRetry ? "queued" : "failed", status);
}

async function post(url: string, body: string, secret: string | null, timeoutMs: number, clock: Clock) {
	const headers: Record<string, string> = { "Content-Type": "application/json", "User-Agent": "meetbot-webhooks/1" };
	if (secret) Object.assign(headers, await signWebhook(secret, body, clock.now().getTime() / 1000));
	try {
		const res = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
		await res.body?.cancel().catch(() => undefined);
		return { status: res.status, retryable: res.status >= 500 || res.status === 429 || res.status === 408 };
	} catch {
		// Connection refused, reset, DNS, TLS or timeout: the receiver may be back later.
		return { status: null, retryable: true };
	}
}

/** The host name only: never the port, path, query or credentials. */
function hostOf(url: string): string {
	try {
		return new URL(url).hostname;
	} catch {
		return "";
	}
}

const errorName = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : "unknown error");
