/**
 * The bot host's HTTP face for the Worker: POST /bots (spawn), DELETE /bots/<meeting_id>
 * (stop), GET /health. Spawn and stop need `Authorization: Bearer <BOT_HOST_SECRET>`.
 * A bot that fails or crashes reports on its own channel; it never takes the host down.
 * Refusals carry `detail` (and `error`, the same text, which older Workers read).
 */
import { timingSafeEqual } from "node:crypto";
import { accessSync, constants } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { SpawnRequest } from "../src/bot-channel/protocol.ts";
import { type BrowserOptions, browserMissing } from "./bot/browser.ts";
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

/**
 * What the host can do now. Without a browser no bot can start, so the host is unavailable
 * (/health 503, spawns refused with the same sentence). Without espeak-ng it is degraded: bots
 * join and transcribe, but cannot speak text, and sandbox participants stay silent.
 */
export interface HostReadiness {
	status: "ok" | "degraded" | "unavailable";
	/** The first problem, fatal ones first; absent when ok. */
	detail?: string;
	problems: string[];
}

export function hostReadiness(browserPath: string, searchPath = process.env.PATH ?? ""): HostReadiness {
	const browser = browserMissing(browserPath);
	const speech = onSearchPath("espeak-ng", searchPath)
		? null
		: "espeak-ng not found on PATH (install the Debian package espeak-ng): bots cannot speak text and sandbox participants are silent";
	const problems = [browser, speech].filter((p): p is string => p !== null);
	const status = browser ? "unavailable" : speech ? "degraded" : "ok";
	return { status, ...(problems[0] ? { detail: problems[0] } : {}), problems };
}

function onSearchPath(command: string, searchPath: string): boolean {
	return searchPath
		.split(path.delimiter)
		.filter(Boolean)
		.some((dir) => {
			try {
				accessSync(path.join(dir, command), constants.X_OK);
				return true;
			} catch {
				return false;
			}
		});
}

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
			if (shuttingDown) return json(res, 200, { status: "draining", bots: bots.size });
			const ready = hostReadiness(options.browser.executablePath);
			return json(res, ready.status === "unavailable" ? 503 : 200, { ...ready, bots: bots.size });
		}
		if (url.pathname === "/bots" || url.pathname.startsWith("/bots/")) {
			if (!authorized(req)) return refuse(res, 401, "unauthorized");
		} else return refuse(res, 404, "not found");

		if (method === "POST" && url.pathname === "/bots") {
			if (shuttingDown) return refuse(res, 503, "bot host is shutting down");
			// Said now, so the meeting fails with the reason instead of a bot that dies unexplained.
			const noBrowser = browserMissing(options.browser.executablePath);
			if (noBrowser) return refuse(res, 503, noBrowser);
			let body: unknown;
			try {
				body = await readJson(req);
			} catch {
				return refuse(res, 400, "body is not JSON");
			}
			const parsed = SpawnRequest.safeParse(body);
			if (!parsed.success)
				return json(res, 422, { error: "invalid spawn request", detail: "invalid spawn request", issues: parsed.error.issues });
			const request = parsed.data;
			if (bots.has(request.meeting_id)) return refuse(res, 409, "a bot is already running for this meeting");
			// Every bot is a Chromium in this one process's care: past the cap, refuse rather than
			// let memory run out and take every meeting on the host down with it.
			if (bots.size >= maxBots) return refuse(res, 503, `bot host is at capacity: ${maxBots} ${maxBots === 1 ? "bot" : "bots"}`);
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
			if (!session) return refuse(res, 404, "no bot for this meeting");
			void session.stop("stopped");
			return json(res, 202, { meeting_id: meetingId, status: "stopping" });
		}
		refuse(res, 405, "method not allowed");
	};

	const server = http.createServer((req, res) => {
		handle(req, res).catch((err: unknown) => {
			log(`bot host request failed: ${err instanceof Error ? err.message : String(err)}`);
			if (!res.headersSent) refuse(res, 500, "internal error");
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

function refuse(res: ServerResponse, status: number, detail: string): void {
	json(res, status, { error: detail, detail });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
}
