import { MeetbotApiError } from "@meetbot/client";
import { api } from "../api";
import { type ChatFrame, chatFrame } from "./chat-frames";

const REATTACH_ATTEMPTS = 3;

export const SESSION_NAME = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Runs one chat turn's stream to its `turn-complete`. The turn lives in the agent object, not
 * in this connection: when the stream breaks the same request is sent again with the same
 * `turn_id` nonce and `Last-Event-ID`, which reattaches to the turn instead of starting another
 * (docs/agent.md#chat).
 */
export async function streamTurn(opts: {
	prompt: string;
	session: string;
	nonce: string;
	signal: AbortSignal;
	onFrame: (frame: ChatFrame) => void;
}): Promise<void> {
	let lastEventId: string | undefined;
	let complete = false;
	const body = { prompt: opts.prompt, session: opts.session, turn_id: opts.nonce };
	for (let attempt = 0; ; attempt++) {
		try {
			for await (const event of api.agent.chat(body, { lastEventId, signal: opts.signal })) {
				if (event.id) lastEventId = event.id;
				const frame = chatFrame(event.data);
				if (!frame) continue;
				if (frame.type === "turn-complete") complete = true;
				opts.onFrame(frame);
			}
		} catch (err) {
			// The API refused the request (its detail is the answer), or the page went away.
			if (err instanceof MeetbotApiError || opts.signal.aborted) throw err;
		}
		if (complete || opts.signal.aborted) return;
		if (attempt >= REATTACH_ATTEMPTS)
			throw new Error("The connection broke before the turn ended; its reply will be in the session's history.");
		await new Promise((resolve) => setTimeout(resolve, 1000 * (attempt + 1)));
	}
}

export function newNonce(): string {
	return `web-${crypto.randomUUID()}`;
}
