/**
 * Reads an ICS feed through the outbound URL guard, with a size limit and a timeout. Every
 * problem is an outcome with a message fit for `last_error`: it names what went wrong and
 * never the address (a credential) or anything the server sent back.
 */

import { readCappedBytes } from "../outbound/capped-body";
import { checkOutboundUrl, type OutboundPolicy } from "../outbound/url-guard";
import { DEPLOYMENT_DEFAULTS } from "../settings/deployment-defaults";

export interface FeedLimits {
	maxBytes: number;
	timeoutMs: number;
}

export const DEFAULT_FEED_LIMITS: FeedLimits = {
	maxBytes: DEPLOYMENT_DEFAULTS.CALENDAR_FEED_MAX_BYTES,
	timeoutMs: DEPLOYMENT_DEFAULTS.CALENDAR_FEED_TIMEOUT_S * 1000,
};

export type FeedResult = { ok: true; text: string } | { ok: false; error: string };

const MAX_REDIRECTS = 5;

export async function fetchFeed(address: string, policy: OutboundPolicy, limits: FeedLimits = DEFAULT_FEED_LIMITS): Promise<FeedResult> {
	const signal = AbortSignal.timeout(limits.timeoutMs);
	let target = address;
	try {
		// Redirects are followed by hand so that every hop passes the guard.
		for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
			const checked = checkOutboundUrl(target, policy);
			if (!checked.ok) return fail(`The calendar feed address is not allowed (${checked.reason.replace("_", " ")})`);
			const res = await fetch(checked.url, {
				redirect: "manual",
				signal,
				headers: { accept: "text/calendar, text/plain;q=0.8, */*;q=0.1", "user-agent": "meetbot-calendar-sync/1" },
			});
			if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
				await res.body?.cancel();
				target = new URL(res.headers.get("location") ?? "", checked.url).toString();
				continue;
			}
			if (!res.ok) {
				await res.body?.cancel();
				return fail(`The calendar feed answered HTTP ${res.status}`);
			}
			return await readLimited(res, limits.maxBytes);
		}
		return fail("The calendar feed redirected too many times");
	} catch (err) {
		if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) {
			return fail(`The calendar feed did not answer within ${Math.round(limits.timeoutMs / 1000)} s`);
		}
		return fail("The calendar feed could not be reached");
	}
}

async function readLimited(res: Response, maxBytes: number): Promise<FeedResult> {
	const bytes = await readCappedBytes(res, maxBytes);
	if (!bytes) return fail(`The calendar feed is larger than ${formatBytes(maxBytes)}`);
	return { ok: true, text: new TextDecoder("utf-8").decode(bytes) };
}

function formatBytes(n: number): string {
	return n >= 1024 * 1024 ? `${Math.round((n / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(n / 1024)} KB`;
}

const fail = (error: string): FeedResult => ({ ok: false, error });
