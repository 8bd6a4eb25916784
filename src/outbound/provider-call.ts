/**
 * One call to a provider the Worker holds a credential for (speech, transcription), so the
 * credential never leaves it: a redirect is not followed (it would carry the credential on), the
 * call has a timeout and the answer a byte cap, and every failure is a 502 in our words, never
 * the provider's own text. The caller judges the address first (the outbound guard).
 */
import { ApiError } from "../errors";
import { readCappedBytes } from "./capped-body";

export interface ProviderCall {
	/** How errors name the provider: "The speech provider". */
	what: string;
	/** How errors name its answer: "audio", "answer". */
	answer: string;
	maxBytes: number;
	timeoutMs: number;
}

export async function callProvider(
	url: string,
	init: { method: string; headers: Record<string, string>; body: BodyInit },
	call: ProviderCall,
): Promise<{ bytes: Uint8Array; contentType: string | null }> {
	let res: Response;
	try {
		res = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(call.timeoutMs) });
	} catch {
		throw new ApiError(502, `${call.what} could not be reached`);
	}
	if (res.status >= 300 && res.status < 400) {
		await res.body?.cancel();
		throw new ApiError(502, `${call.what} answered a redirect (${res.status}), which is not followed`);
	}
	if (!res.ok) {
		await res.body?.cancel();
		throw new ApiError(502, `${call.what} answered ${res.status}`);
	}
	let bytes: Uint8Array | null;
	try {
		bytes = await readCappedBytes(res, call.maxBytes);
	} catch {
		throw new ApiError(502, `${call.what}'s ${call.answer} could not be read`);
	}
	if (!bytes) throw new ApiError(502, `${call.what}'s ${call.answer} is larger than ${call.maxBytes / 1024 / 1024} MB`);
	return { bytes, contentType: res.headers.get("content-type") };
}
