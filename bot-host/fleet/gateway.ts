/**
 * The two calls a bot host makes to the Worker (BOT_HOST_GATEWAY_URL, Bearer: the host's own
 * credential, minted for its host id): claiming an attempt with the ticket it pulled
 * (`POST /internal/bot-hosts/claims`), which hands the full spawn request to the first claimer
 * only, and reporting the host's state (`POST /internal/bot-hosts/reports`).
 */
import { ClaimRefusalReason, type ClaimRequest, type HostReport } from "../../src/bot-channel/fleet.ts";
import { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { errorText } from "../error-text.ts";

export type ClaimOutcome =
	/** This host won the attempt: start the bot. */
	| { kind: "claimed"; request: SpawnRequest }
	/** Another host won it, a newer attempt exists, or the meeting no longer wants a bot. */
	| { kind: "refused"; reason: ClaimRefusalReason | "unknown"; detail: string }
	/** No answer, or one that settles nothing (5xx, 401, 403, a body that is no spawn request): try again later. */
	| { kind: "unanswered"; detail: string };

export interface GatewayOptions {
	url: string;
	/**
	 * The host's credential, asked for at every call: read from a mounted file, a rotated
	 * Secret takes effect without a restart. Null while there is none (nothing is sent then).
	 */
	credential: () => string | null;
	timeoutMs?: number;
}

/** The host has no credential (yet): its calls are not made. */
export class NoCredential extends Error {}

export class Gateway {
	private readonly base: string;
	private readonly options: GatewayOptions;

	constructor(options: GatewayOptions) {
		this.options = options;
		this.base = options.url.replace(/\/+$/, "");
	}

	async claim(claim: ClaimRequest): Promise<ClaimOutcome> {
		let res: Response;
		try {
			res = await this.post("/internal/bot-hosts/claims", claim);
		} catch (err) {
			if (err instanceof NoCredential) return { kind: "unanswered", detail: err.message };
			return { kind: "unanswered", detail: `the gateway is unreachable: ${errorText(err)}` };
		}
		const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
		if (res.status === 200) {
			const request = SpawnRequest.safeParse(body);
			if (request.success) return { kind: "claimed", request: request.data };
			return { kind: "unanswered", detail: "the claim answer is not a spawn request" };
		}
		const detail = typeof body?.detail === "string" ? body.detail : `the gateway answered ${res.status}`;
		if (res.status === 409) {
			const reason = ClaimRefusalReason.safeParse(body?.reason);
			return { kind: "refused", reason: reason.success ? reason.data : "unknown", detail };
		}
		return { kind: "unanswered", detail: `${res.status}: ${detail}` };
	}

	/** Throws when the report was not taken; the caller only logs it. */
	async report(report: HostReport): Promise<void> {
		const res = await this.post("/internal/bot-hosts/reports", report);
		await res.body?.cancel();
		if (!res.ok) throw new Error(`the gateway answered ${res.status}`);
	}

	private post(path: string, body: unknown): Promise<Response> {
		const credential = this.options.credential();
		if (!credential)
			return Promise.reject(new NoCredential("this host has no credential (BOT_HOST_CREDENTIAL or BOT_HOST_CREDENTIAL_FILE)"));
		return fetch(`${this.base}${path}`, {
			method: "POST",
			headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
		});
	}
}
