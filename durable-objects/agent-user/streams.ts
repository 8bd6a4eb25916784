import { type LoggedFrame, SSE_HEADERS, SSE_KEEPALIVE, sseFrame } from "../../src/agent/frames";
import { DEPLOYMENT_DEFAULTS } from "../../src/settings/deployment-defaults";

/** A comment every 15 s (AGENT_SSE_KEEPALIVE_MS) keeps a quiet stream open through proxies and the edge. */
export const KEEPALIVE_MS = DEPLOYMENT_DEFAULTS.AGENT_SSE_KEEPALIVE_MS;
/** A client this many frames behind is not reading: it is dropped rather than buffered without end. */
const MAX_BACKLOG = 10_000;

interface Subscriber {
	controller: ReadableStreamDefaultController<Uint8Array>;
	/** The turn whose `turn-complete` ends this stream. */
	turnId: string;
	keepalive: ReturnType<typeof setInterval> | null;
	closed: boolean;
}

/**
 * The open SSE streams of one user's agent, by turn. Frames reach them only after they are
 * logged; a client that goes away just loses its stream, never the turn.
 */
export class AgentStreams {
	private readonly byTurn = new Map<string, Set<Subscriber>>();

	constructor(private readonly keepaliveMs = KEEPALIVE_MS) {}

	/**
	 * A stream that first sends `replay`, then, if `follow` names a running turn, that turn's
	 * frames as they are logged, ending after its `turn-complete`. The caller builds `replay`
	 * and calls this with no `await` in between, so no frame falls in the gap.
	 */
	open(replay: LoggedFrame[], follow: string | null, headers: Record<string, string> = {}): Response {
		let subscriber: Subscriber | null = null;
		const stream = new ReadableStream<Uint8Array>({
			start: (controller) => {
				for (const logged of replay) controller.enqueue(sseFrame(logged));
				if (follow === null) {
					controller.close();
					return;
				}
				const s: Subscriber = { controller, turnId: follow, keepalive: null, closed: false };
				s.keepalive = setInterval(() => this.send(s, SSE_KEEPALIVE), this.keepaliveMs);
				subscriber = s;
				let set = this.byTurn.get(follow);
				if (!set) {
					set = new Set();
					this.byTurn.set(follow, set);
				}
				set.add(s);
			},
			cancel: () => {
				if (subscriber) this.drop(subscriber);
			},
		});
		return new Response(stream, { headers: { ...SSE_HEADERS, ...headers } });
	}

	/** Sends a logged frame to the streams following its turn; its turn's end closes them. */
	publish(logged: LoggedFrame): void {
		const set = this.byTurn.get(logged.frame.turn_id);
		if (!set) return;
		const bytes = sseFrame(logged);
		for (const s of [...set]) {
			this.send(s, bytes);
			if (logged.frame.type === "turn-complete") this.close(s);
		}
	}

	private send(s: Subscriber, bytes: Uint8Array): void {
		if (s.closed) return;
		if ((s.controller.desiredSize ?? 0) < -MAX_BACKLOG) {
			this.close(s);
			return;
		}
		try {
			s.controller.enqueue(bytes);
		} catch {
			// The client went away: only its stream ends.
			this.drop(s);
		}
	}

	private close(s: Subscriber): void {
		if (s.closed) return;
		try {
			s.controller.close();
		} catch {
			// Already errored or cancelled by the client.
		}
		this.drop(s);
	}

	private drop(s: Subscriber): void {
		s.closed = true;
		if (s.keepalive !== null) clearInterval(s.keepalive);
		const set = this.byTurn.get(s.turnId);
		set?.delete(s);
		if (set?.size === 0) this.byTurn.delete(s.turnId);
	}
}
