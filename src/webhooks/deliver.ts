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
import { WEBHOOK_TEST_EVENT } from "./test-event";

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
	/** How long the request took, from sending to the answer's status (null when nothing was sent). */
	duration_ms?: number | null;
	/** Why no HTTP answer came (`no answer within 10 s`, `the connection failed`), or why it was not sent; null otherwise. */
	error?: string | null;
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
			duration_ms: null,
			error: "the account's settings could not be read",
		};
	}
	if (!target.url)
		return { outcome: "no_target", retry: false, status_code: null, target_host: null, recorded: false, duration_ms: null, error: null };

	const host = hostOf(target.url);
	const finish = async (outcome: DeliveryOutcome, sent: Partial<Sent> = {}): Promise<AttemptReport> => {
		const status = sent.status ?? null;
		const recorded = await recordDelivery(env.DB, userId, event, { host, outcome, status, attempt: options.attempt, clock });
		const error = sent.error ?? (outcome === "blocked" ? "the outbound guard refused the address" : null);
		return { outcome, retry: outcome === "queued", status_code: status, target_host: host, recorded, duration_ms: sent.ms ?? null, error };
	};

	// The test event (POST /user/webhook/test) is no meeting event: no filter can turn it off.
	if (event.event_type !== WEBHOOK_TEST_EVENT && !webhookEventEnabled(target.events, event.event_type)) return finish("suppressed");
	if (!endpointAllowed(env, target.url, target.owner).ok) return finish("blocked");

	const sent = await post(target.url, event.body, target.secret, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, clock);
	if (sent.status !== null && sent.status >= 200 && sent.status < 300) return finish("delivered", sent);
	return finish(sent.retryable && options.willRetry ? "queued" : "failed", sent);
}

interface Sent {
	status: number | null;
	retryable: boolean;
	ms: number;
	error: string | null;
}

async function post(url: string, body: string, secret: string | null, timeoutMs: number, clock: Clock): Promise<Sent> {
	const headers: Record<string, string> = { "Content-Type": "application/json", "User-Agent": "meetbot-webhooks/1" };
	if (secret) Object.assign(headers, await signWebhook(secret, body, clock.now().getTime() / 1000));
	const started = Date.now();
	try {
		const res = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
		const ms = Date.now() - started;
		await res.body?.cancel().catch(() => undefined);
		const redirect = res.status >= 300 && res.status < 400 ? "a redirect, which is never followed" : null;
		return { status: res.status, retryable: res.status >= 500 || res.status === 429 || res.status === 408, ms, error: redirect };
	} catch (err) {
		// Connection refused, reset, DNS, TLS or timeout: the receiver may be back later. The words never carry the URL.
		const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
		const error = timedOut ? `no answer within ${timeoutMs / 1000} s` : "the connection failed (refused, reset, DNS or TLS)";
		return { status: null, retryable: true, ms: Date.now() - started, error };
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
