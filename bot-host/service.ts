/**
 * The bot host's HTTP face for the Worker: POST /bots (spawn), DELETE /bots/<meeting_id>
 * (stop), GET /health. Spawn and stop need `Authorization: Bearer <BOT_HOST_SECRET>`.
 * A bot that fails or crashes reports on its own channel; it never takes the host down.
 */
import { timingSafeEqual } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { SpawnRequest } from "../src/bot-channel/protocol.ts";
import type { BrowserOptions } from "./bot/browser.ts";
import { type HostEgress, hostEgressFromEnv } from "./bot/egress.ts";
import { BotSession } from "./bot/session.ts";

export interface BotHostOptions {
	port: number;
	/** Interface to listen on; loopback unless told otherwise (a container sets 0.0.0.0). */
	bind?: string;
	secret: string;
	browser: BrowserOptions;
	/** URL guard and byte caps for what bots fetch for users; default: private targets refused. */
	egress?: HostEgress;
	/** Live bots at most (BOT_HOST_MAX_BOTS); a spawn beyond it answers 503. */
	maxBots?: number;
	/** Passed to each session (tests shorten the caption settle time). */
	session?: { pollMs?: number; captionSettleMs?: number; joinTimeoutMs?: number };
	log?: (line: string) => void;
}

export const DEFAULT_MAX_BOTS = 20;

export interface BotHost {
	port: number;
	/** Live bots by meeting id. */
	bots: Map<number, BotSession>;
	/** Leave every meeting, report, then stop listening. */
	shutdown(): Promise<void>;
}

export async function startBotHost(options: BotHostOptions): Promise<BotHost> {
	const log = options.log ?? ((line: string) => console.log(line));
	const bots = new Map<number, BotSession>();
	const egress = options.egress ?? hostEgressFromEnv({});
	const maxBots = options.maxBots ?? DEFAULT_MAX_BOTS;
	let shuttingDown = false;

	const authorized = (req: IncomingMessage): boolean => {
		const header = req.headers.authorization ?? "";
		const given = Buffer.from(header.startsWith("Bearer ") ? header.slice(7) : "");
		const expected = Buffer.from(options.secret);
		return options.secret !== "" && given.length === expected.length && timingSafeEqual(given, expected);
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const url = new URL(req.url ?? "/", "http://bot-host");
		const method = req.method ?? "GET";
		if (method === "GET" && url.pathname === "/health") {
			return json(res, 200, { status: shuttingDown ? "draining" : "ok", bots: bots.size });
		}
		if (url.pathname === "/bots" || url.pathname.startsWith("/bots/")) {
			if (!authorized(req)) return json(res, 401, { error: "unauthorized" });
		} else return json(res, 404, { error: "not found" });

		if (method === "POST" && url.pathname === "/bots") {
			if (shuttingDown) return json(res, 503, { error: "bot host is shutting down" });
			let body: unknown;
			try {
				body = await readJson(req);
			} catch {
				return json(res, 400, { error: "body is not JSON" });
			}
			const parsed = SpawnRequest.safeParse(body);
			if (!parsed.success) return json(res, 422, { error: "invalid spawn request", issues: parsed.error.issues });
			const request = parsed.data;
			if (bots.has(request.meeting_id)) return json(res, 409, { error: "a bot is already running for this meeting" });
			// Every bot is a Chromium in this one process's care: past the cap, refuse rather than
			// let memory run out and take every meeting on the host down with it.
			if (bots.size >= maxBots) return json(res, 503, { error: `bot host is at capacity: ${maxBots} ${maxBots === 1 ? "bot" : "bots"}` });
			const session = new BotSession({ request, browser: options.browser, egress, log, ...options.session });
			bots.set(request.meeting_id, session);
			session.finished.finally(() => {
				if (bots.get(request.meeting_id) === session) bots.delete(request.meeting_id);
			});
			session.start();
			log(`bot for meeting ${request.meeting_id} (${request.platform}) spawned`);
			return json(res, 202, { meeting_id: request.meeting_id, status: "joining" });
		}
		const stopMatch = /^\/bots\/(\d+)$/.exec(url.pathname);
		if (method === "DELETE" && stopMatch) {
			const meetingId = Number(stopMatch[1]);
			const session = bots.get(meetingId);
			if (!session) return json(res, 404, { error: "no bot for this meeting" });
			void session.stop("stopped");
			return json(res, 202, { meeting_id: meetingId, status: "stopping" });
		}
		json(res, 405, { error: "method not allowed" });
	};

	const server = http.createServer((req, res) => {
		handle(req, res).catch((err: unknown) => {
			log(`bot host request failed: ${err instanceof Error ? err.message : String(err)}`);
			if (!res.headersSent) json(res, 500, { error: "internal error" });
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port, options.bind ?? "127.0.0.1", () => resolve());
	});
	const address = server.address();
	return {
		port: typeof address === "object" && address ? address.port : options.port,
		bots,
		async shutdown() {
			shuttingDown = true;
			await Promise.allSettled([...bots.values()].map((bot) => bot.stop("stopped")));
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

function json(res: ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
}
