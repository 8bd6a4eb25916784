/**
 * A real HTTP webhook receiver for tests: records every request (method, path, headers, raw
 * body) and answers from a script. State is kept per path, so test files running in parallel
 * each use their own path (e.g. /hooks/<uuid>) and never see each other's traffic.
 *
 * Control endpoints (JSON):
 *   POST /__control/script?path=/hooks/x   {responses:[{status, delay_ms?, body?, headers?, match?}]}  queue answers
 *   GET  /__control/requests?path=/hooks/x  → {requests:[{method, path, query, headers, body, received_at}]}
 *   POST /__control/reset?path=/hooks/x     forget script and requests
 *   POST /__control/serve?path=/feeds/x     raw body = the file to serve at that path from now on;
 *        headers x-serve-status (default 200) and x-serve-content-type (default text/calendar)
 * Any other request is recorded under its path and answered with the next scripted answer
 * (200 "ok" when none is left). An answer with `match` is kept for the first request whose
 * body contains that text, so a test sharing a path (the spawn queue's …/messages) with
 * tests in other files scripts only its own request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { json, listenLocally, readBody } from "./node-http.ts";

export interface ScriptedAnswer {
	status: number;
	delay_ms?: number;
	body?: string;
	/** Extra response headers, e.g. a redirect's Location. */
	headers?: Record<string, string>;
	/** Only for a request whose body contains this text. */
	match?: string;
}

export interface ReceivedRequest {
	method: string;
	path: string;
	query: string;
	headers: Record<string, string | string[] | undefined>;
	body: string;
	received_at: number;
}

interface PathState {
	script: ScriptedAnswer[];
	received: ReceivedRequest[];
	/** A file served to every request once the script is used up (ICS feeds). */
	served?: { status: number; contentType: string; body: Buffer };
}

export interface WebhookReceiver {
	url: string;
	close(): Promise<void>;
}

/**
 * 200 "ok", except under /spawn-queue/, where the receiver stands in for the Queues HTTP API's
 * publish and answers its envelope (a scripted answer models an outage there).
 */
function defaultAnswer(path: string): ScriptedAnswer {
	if (path.startsWith("/spawn-queue/")) {
		return {
			status: 200,
			headers: { "content-type": "application/json" },
			body: '{"success":true,"errors":[],"messages":[],"result":null}',
		};
	}
	return { status: 200, body: "ok" };
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
	const paths = new Map<string, PathState>();
	const stateOf = (path: string) => {
		let state = paths.get(path);
		if (!state) {
			state = { script: [], received: [] };
			paths.set(path, state);
		}
		return state;
	};

	const server = createServer(async (req, res) => {
		try {
			const url = new URL(req.url ?? "/", "http://receiver");
			const body = await readBody(req);
			if (url.pathname.startsWith("/__control/")) return control(url, req, body, res);
			const state = stateOf(url.pathname);
			state.received.push({
				method: req.method ?? "",
				path: url.pathname,
				query: url.search,
				headers: { ...req.headers },
				body: body.toString("utf8"),
				received_at: Date.now(),
			});
			const text = body.toString("utf8");
			const next = state.script.findIndex((a) => a.match === undefined || text.includes(a.match));
			const served = state.served;
			if (next < 0 && served) return void res.writeHead(served.status, { "content-type": served.contentType }).end(served.body);
			const answer = (next >= 0 ? state.script.splice(next, 1)[0] : undefined) ?? defaultAnswer(url.pathname);
			if (answer.delay_ms) await new Promise((r) => setTimeout(r, answer.delay_ms));
			if (res.destroyed) return;
			res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers }).end(answer.body ?? "");
		} catch (err) {
			res.writeHead(500).end(String(err));
		}
	});

	function control(url: URL, req: IncomingMessage, body: Buffer, res: ServerResponse) {
		const path = url.searchParams.get("path");
		if (!path) return json(res, 400, { error: "path is required" });
		const action = url.pathname.slice("/__control/".length);
		if (action === "script") {
			const { responses } = JSON.parse(body.toString("utf8")) as { responses: ScriptedAnswer[] };
			stateOf(path).script.push(...responses);
			return json(res, 200, { queued: stateOf(path).script.length });
		}
		if (action === "requests") return json(res, 200, { requests: stateOf(path).received });
		if (action === "serve") {
			const header = (name: string) => (Array.isArray(req.headers[name]) ? undefined : (req.headers[name] as string | undefined));
			stateOf(path).served = {
				status: Number(header("x-serve-status") ?? 200),
				contentType: header("x-serve-content-type") ?? "text/calendar; charset=utf-8",
				body,
			};
			return json(res, 200, { bytes: body.length });
		}
		if (action === "reset") {
			paths.delete(path);
			return json(res, 200, {});
		}
		return json(res, 404, { error: "unknown control action" });
	}

	return listenLocally(server);
}
