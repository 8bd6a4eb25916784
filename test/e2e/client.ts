/** A client of the running gateway, as an outside program would be: HTTP and WebSockets only. */
import { inject } from "vitest";
import WebSocket from "ws";
import { eventually } from "../shared/wait";

export const gateway = () => inject("gatewayUrl");
export const receiverUrl = () => inject("receiverUrl");

export function api<T = Record<string, unknown>>(method: string, path: string, options: CallOptions = {}) {
	return apiAt<T>(gateway(), method, path, options);
}

interface CallOptions {
	key?: string;
	admin?: boolean;
	json?: unknown;
}

/** Calls a gateway as any HTTP client would; JSON answers are parsed, others kept as text. */
export async function apiAt<T = Record<string, unknown>>(base: string, method: string, path: string, options: CallOptions = {}) {
	const headers: Record<string, string> = {};
	if (options.key) headers["X-API-Key"] = options.key;
	if (options.admin) headers["X-Admin-API-Key"] = inject("adminToken");
	if (options.json !== undefined) headers["content-type"] = "application/json";
	const res = await fetch(`${base}${path}`, {
		method,
		headers,
		body: options.json === undefined ? undefined : JSON.stringify(options.json),
	});
	const text = await res.text();
	let body: unknown = text;
	try {
		body = text ? JSON.parse(text) : null;
	} catch {
		// plain text answer
	}
	return { status: res.status, headers: res.headers, body: body as T };
}

/** A new user (named when `name` is given) with a bot,tx key, made through the admin API. */
export async function newAccount(base = gateway(), name?: string) {
	const email = `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
	const user = await apiAt(base, "POST", "/admin/users", { admin: true, json: { email, ...(name && { name }) } });
	const minted = await apiAt(base, "POST", `/admin/users/${user.body.id}/tokens?scopes=bot,tx`, { admin: true });
	return { userId: user.body.id as number, key: minted.body.token as string, email };
}

export class Socket {
	readonly messages: Record<string, unknown>[] = [];
	closed: { code: number; reason: string } | undefined;

	private constructor(readonly ws: WebSocket) {
		ws.on("message", (data) => {
			this.messages.push(JSON.parse(String(data)));
		});
		ws.on("close", (code, reason) => {
			this.closed = { code, reason: String(reason) };
		});
	}

	static open(url: string, headers: Record<string, string> = {}): Promise<Socket> {
		return new Promise((resolve, reject) => {
			const ws = new WebSocket(url, { headers });
			const socket = new Socket(ws);
			ws.once("open", () => resolve(socket));
			ws.once("error", reject);
		});
	}

	send(message: unknown): void {
		this.ws.send(JSON.stringify(message));
	}

	waitFor(what: string, match: (m: Record<string, unknown>) => boolean, ms?: number) {
		return eventually(what, () => this.messages.find(match), ms);
	}

	close(): void {
		this.ws.close(1000);
	}
}

export const wsUrl = (path: string, base = gateway()) => `${base.replace(/^http/, "ws")}${path}`;

export async function receivedAt(path: string): Promise<{ body: string; headers: Record<string, string | string[] | undefined> }[]> {
	const res = await fetch(`${receiverUrl()}/__control/requests?path=${encodeURIComponent(path)}`);
	return ((await res.json()) as { requests: { body: string; headers: Record<string, string> }[] }).requests;
}

/** The gateway whose bot host runs real Chromium bots against the platform sandbox. */
export const botGateway = () => inject("botGatewayUrl");

/** Sets what happens in a sandbox meeting, keyed by the native meeting id the bot opens. */
export async function sandboxScenario(meetingId: string, scenario: Record<string, unknown>): Promise<void> {
	const res = await fetch(`${inject("sandboxUrl")}/meetings/${encodeURIComponent(meetingId)}`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(scenario),
	});
	if (!res.ok) throw new Error(`sandbox scenario: ${res.status} ${await res.text()}`);
}

/** What the sandbox meeting saw the bot do (its name, microphone, camera, chat). */
export async function sandboxObserved(meetingId: string): Promise<Record<string, unknown>> {
	return (await (await fetch(`${inject("sandboxUrl")}/meetings/${encodeURIComponent(meetingId)}/observed`)).json()) as Record<
		string,
		unknown
	>;
}

/** Native ids per platform that the sandbox serves under the real platform URLs. */
export function nativeId(platform: string): string {
	const digits = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join("");
	if (platform === "zoom") return `8${digits(10)}`;
	if (platform === "teams") return `9${digits(12)}`;
	const l = Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");
	return `${l.slice(0, 3)}-${l.slice(3, 7)}-${l.slice(7)}`;
}
