/**
 * The platform sandbox: HTTPS pages that look like Google Meet, the Zoom web client and Teams
 * web to a browser bot, plus a plain-HTTP control API on the same port (TLS is told apart by
 * the first byte) so tests and users can script meetings and read what the bot did.
 */
import { readFileSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import { z } from "zod";
import { errorText } from "../error-text.ts";
import { makeSandboxCertificate, sandboxChromiumFlags } from "./cert.ts";
import { googleMeetPage } from "./pages/google-meet.ts";
import type { MeetingPageState } from "./pages/shell.ts";
import { teamsPage } from "./pages/teams.ts";
import { zoomPage } from "./pages/zoom.ts";
import { DEFAULT_SCENARIO, NOT_FOUND_SCENARIO, type Observed, type PrejoinScreen, SandboxMeeting, Scenario } from "./scenario.ts";
import { speak } from "./speech.ts";

/**
 * The pages' runtime, served as one script (/__sandbox/runtime.js) whose parts share one scope:
 * each part's top level only declares, and runtime.js, last, publishes window.Sandbox.
 */
export const RUNTIME_PARTS = ["runtime-automation.js", "runtime-voices.js", "runtime-media.js", "runtime-video.js", "runtime.js"];
const RUNTIME_JS = `(() => {\n${RUNTIME_PARTS.map((part) => readFileSync(path.join(import.meta.dirname, "pages", part), "utf8")).join("\n")}})();\n`;

/**
 * What a meeting id nobody configured is: by default no meeting at all, so a bot sent there
 * fails as it would on the platform; `open` makes every id a meeting with a default scenario.
 */
export const UnconfiguredMeetings = z.enum(["not_found", "open"]);
export type UnconfiguredMeetings = z.infer<typeof UnconfiguredMeetings>;

/** SANDBOX_UNCONFIGURED_MEETINGS: `not_found` (default) or `open`. */
export function unconfiguredMeetingsFromEnv(value: string | undefined): UnconfiguredMeetings {
	const parsed = UnconfiguredMeetings.safeParse(value?.trim() || "not_found");
	if (!parsed.success) throw new Error(`SANDBOX_UNCONFIGURED_MEETINGS must be not_found or open (got "${value}")`);
	return parsed.data;
}

export interface Sandbox {
	port: number;
	/** Plain-HTTP base URL of the control API. */
	controlUrl: string;
	spkiHash: string;
	/** Flags for a bot's Chromium: host mapping plus trust of exactly the sandbox key. */
	chromiumFlags: string[];
	setScenario(meetingId: string, scenario: z.input<typeof Scenario>): void;
	observed(meetingId: string): Observed | null;
	/** The bot's microphone as the meeting heard it (16 kHz mono WAV). */
	micWav(meetingId: string): Buffer | null;
	close(): Promise<void>;
}

const AskBody = z.object({
	name: z.string().max(200),
	platform: z.string(),
	mic_on: z.boolean(),
	camera_on: z.boolean(),
	passcode: z.string().nullable(),
	automation: z.array(z.string().max(300)).max(10).default([]),
});
const MediaBody = z.object({
	mic: z.object({ windows: z.number(), voiced: z.number(), peak: z.number() }),
	camera_frame: z.string().nullable(),
	camera_color: z.array(z.number()).length(3).nullable(),
	captions: z.array(z.object({ speaker: z.string(), text: z.string(), at: z.number() })).default([]),
	/** 16 kHz mono PCM16, base64: the bot's microphone while it was on. */
	mic_pcm: z.string().nullable().default(null),
});
/** Who holds the speaker view from when (epoch ms), as the attendee's page shows it; null: nobody. */
const ActiveSpeakerBody = z.object({ speaker: z.string().max(200).nullable(), at: z.number() });
const DevicesBody = z.object({ mic_on: z.boolean(), camera_on: z.boolean() });
const ScreenBody = z.object({ presenting: z.boolean(), frame: z.string().nullable(), color: z.array(z.number()).length(3).nullable() });
const ChatBody = z.object({ sender: z.string(), text: z.string().max(10_000) });
const ChoicesBody = z.object({
	caption_language: z.string().max(32).optional(),
	notes_consent: z.enum(["accepted", "declined"]).optional(),
});
const ActionBody = z.object({
	action: z.enum(["admit", "deny", "remove", "end", "clear_interstitial", "restore_layout", "restore_captions"]),
});
const SettingsBody = z.object({ unconfigured_meetings: UnconfiguredMeetings });

export async function startSandbox(
	options: { port?: number; now?: () => number; unconfiguredMeetings?: UnconfiguredMeetings } = {},
): Promise<Sandbox> {
	const now = options.now ?? Date.now;
	const certificate = makeSandboxCertificate();
	const meetings = new Map<string, SandboxMeeting>();
	let unconfigured = options.unconfiguredMeetings ?? "not_found";
	const unconfiguredScenario = () => (unconfigured === "open" ? DEFAULT_SCENARIO : NOT_FOUND_SCENARIO);
	/** The meeting as the sandbox would run it, without remembering an id only looked at. */
	const peek = (id: string): SandboxMeeting => meetings.get(id) ?? new SandboxMeeting(id, unconfiguredScenario(), now);
	const meetingFor = (id: string): SandboxMeeting => {
		let m = meetings.get(id);
		if (!m) {
			m = peek(id);
			meetings.set(id, m);
		}
		return m;
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const url = new URL(req.url ?? "/", `https://${req.headers.host ?? "localhost"}`);
		// The control URL is printed without its trailing slash (scripts/local-stack.mjs): both forms are the map.
		if (url.pathname === "/__sandbox" || url.pathname.startsWith("/__sandbox/")) return control(req, res, url);
		const page = platformPage(
			url,
			(code) => peek(code).scenario,
			(code) => peek(code).prejoinScreen(true),
		);
		if (!page) return send(res, 404, "text/plain", "not a sandbox meeting link");
		if (page.redirect) {
			res.writeHead(302, { location: page.redirect }).end();
			return;
		}
		send(res, 200, "text/html; charset=utf-8", page.html ?? "");
	};

	const control = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
		const parts = url.pathname.split("/").filter(Boolean).slice(1).map(decodeURIComponent);
		const method = req.method ?? "GET";
		if (method === "GET" && parts[0] === "runtime.js") return send(res, 200, "text/javascript", RUNTIME_JS);
		if (method === "GET" && parts[0] === "health") return json(res, 200, { ok: true });
		if (parts[0] === "settings" && parts.length === 1) {
			if (method === "POST") {
				const body = SettingsBody.safeParse(await readJson(req));
				if (!body.success) return json(res, 422, { error: "unconfigured_meetings must be not_found or open" });
				unconfigured = body.data.unconfigured_meetings;
			} else if (method !== "GET") return json(res, 405, { error: "method not allowed" });
			return json(res, 200, { unconfigured_meetings: unconfigured });
		}
		if (method === "GET" && parts.length === 0) {
			// A map of the sandbox for people trying it by hand.
			return json(res, 200, {
				pages: [
					"https://meet.google.com/<code>",
					"https://app.zoom.us/wc/<id>/join?pwd=<passcode>",
					"https://teams.microsoft.com/meet/<id>?p=<passcode>",
				],
				control: {
					"POST /__sandbox/meetings/<id>": "set the scenario (an id without one is no meeting, unless settings say open)",
					"POST /__sandbox/settings": "{unconfigured_meetings: not_found|open}",
					"POST /__sandbox/meetings/<id>/actions": "{action: admit|deny|remove|end|clear_interstitial|restore_layout|restore_captions}",
					"GET /__sandbox/meetings/<id>/observed": "what the meeting saw of the bot",
					"POST /__sandbox/meetings/<id>/choices": "{caption_language?, notes_consent?}: the page reports what the bot chose on it",
					"GET /__sandbox/meetings/<id>/screen": "{interstitial, layout_changed}: whether those screens show now",
					"GET /__sandbox/meetings/<id>/observed/mic.wav": "the bot's microphone",
					"DELETE /__sandbox/meetings/<id>": "forget the meeting",
				},
				meetings: [...meetings.keys()],
				unconfigured_meetings: unconfigured,
			});
		}
		if (method === "GET" && parts[0] === "speech.wav") {
			const line = await speak(url.searchParams.get("text") ?? "");
			return send(res, 200, "audio/wav", line.wav);
		}
		if (parts[0] !== "meetings" || !parts[1]) return json(res, 404, { error: "unknown sandbox route" });
		const id = parts[1];
		const rest = parts.slice(2).join("/");
		if (rest === "" && method === "POST") {
			const parsed = Scenario.safeParse(await readJson(req));
			if (!parsed.success) return json(res, 422, { error: "invalid scenario", issues: parsed.error.issues });
			const meeting = new SandboxMeeting(id, parsed.data, now);
			meetings.set(id, meeting);
			return json(res, 200, { meeting_id: id, scenario: meeting.scenario });
		}
		if (rest === "" && method === "DELETE") {
			meetings.delete(id);
			return json(res, 200, { meeting_id: id, deleted: true });
		}
		if (rest === "" && method === "GET")
			return json(res, 200, { meeting_id: id, configured: meetings.has(id), scenario: peek(id).scenario });
		if (rest === "observed" && method === "GET") return json(res, 200, peek(id).observed());
		// The meeting page polls this while it shows an interstitial or a changed layout.
		if (rest === "screen" && method === "GET") return json(res, 200, peek(id).prejoinScreen());
		if (rest === "observed/mic.wav" && method === "GET") return send(res, 200, "audio/wav", peek(id).micWav());
		const meeting = meetingFor(id);
		if (rest === "actions" && method === "POST") {
			const body = ActionBody.safeParse(await readJson(req));
			if (!body.success)
				return json(res, 422, { error: "action must be admit, deny, remove, end, clear_interstitial, restore_layout or restore_captions" });
			const { action } = body.data;
			if (action === "clear_interstitial") meeting.clearInterstitial();
			else if (action === "restore_layout") meeting.restoreLayout();
			else if (action === "restore_captions") meeting.restoreCaptions();
			else meeting.force(action);
			return json(res, 200, { meeting_id: id, action: body.data.action });
		}
		if (rest === "ask" && method === "POST") {
			const body = AskBody.parse(await readJson(req));
			const attendee = meeting.ask(body.name, body.platform, body.mic_on, body.camera_on, body.passcode, body.automation);
			return json(res, 200, { attendee_id: attendee.id, phase: meeting.phaseOf(attendee), scenario: meeting.scenario });
		}
		// The page reports what the bot chose on it (a caption language, an answer to a prompt).
		if (rest === "choices" && method === "POST") {
			const body = ChoicesBody.safeParse(await readJson(req));
			if (!body.success) return json(res, 422, { error: "invalid choices" });
			Object.assign(meeting.choices, body.data);
			return json(res, 200, meeting.choices);
		}
		if (rest === "chat" && method === "POST") {
			const body = ChatBody.parse(await readJson(req));
			meeting.chatSent.push({ ...body, at: new Date(now()).toISOString() });
			return json(res, 200, { ok: true });
		}
		const attendee = parts[2] === "attendees" && parts[3] ? meeting.attendees.get(parts[3]) : undefined;
		if (!attendee) return json(res, 404, { error: "unknown attendee" });
		if (parts[4] === "phase" && method === "GET") return json(res, 200, meeting.viewOf(attendee));
		if (parts[4] === "leave" && method === "POST") {
			meeting.leave(attendee);
			return json(res, 200, { phase: meeting.phaseOf(attendee) });
		}
		if (parts[4] === "devices" && method === "POST") {
			const body = DevicesBody.parse(await readJson(req));
			const last = attendee.devices.at(-1);
			if (last?.mic_on !== body.mic_on || last?.camera_on !== body.camera_on) attendee.devices.push(body);
			return json(res, 200, { ok: true });
		}
		if (parts[4] === "active_speaker" && method === "POST") {
			const body = ActiveSpeakerBody.safeParse(await readJson(req));
			if (!body.success) return json(res, 422, { error: "an active speaker is {speaker: name or null, at: epoch ms}" });
			attendee.activeSpeakers.push(body.data);
			return json(res, 200, { ok: true });
		}
		if (parts[4] === "media" && method === "POST") {
			const body = MediaBody.parse(await readJson(req));
			meeting.mic.windows += body.mic.windows;
			meeting.mic.voiced_windows += body.mic.voiced;
			meeting.mic.peak_rms = Math.max(meeting.mic.peak_rms, body.mic.peak);
			meeting.captionsShown.push(...body.captions);
			if (body.mic_pcm) meeting.micAudio.push(Buffer.from(body.mic_pcm, "base64"));
			if (body.camera_frame) {
				meeting.camera.frames++;
				meeting.camera.last_frame = body.camera_frame;
				meeting.camera.last_color = body.camera_color;
			}
			return json(res, 200, { ok: true });
		}
		if (parts[4] === "screen" && method === "POST") {
			const body = ScreenBody.parse(await readJson(req));
			meeting.screenReport(body.presenting, body.frame, body.color);
			return json(res, 200, { ok: true });
		}
		json(res, 404, { error: "unknown sandbox route" });
	};

	const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
		handle(req, res).catch((err: unknown) => {
			if (!res.headersSent) json(res, 500, { error: errorText(err) });
			else res.destroy();
		});
	};
	const tlsServer = https.createServer({ key: certificate.key, cert: certificate.cert }, onRequest);
	const plainServer = http.createServer(onRequest);
	const sockets = new Set<net.Socket>();
	// One port for both: a TLS ClientHello starts with 0x16, anything else is plain HTTP.
	const front = net.createServer((socket) => {
		sockets.add(socket);
		socket.on("close", () => sockets.delete(socket));
		socket.once("readable", () => {
			const head: Buffer | null = socket.read(1);
			if (!head) return socket.destroy();
			socket.unshift(head);
			(head[0] === 0x16 ? tlsServer : plainServer).emit("connection", socket);
		});
	});
	await new Promise<void>((resolve, reject) => {
		front.once("error", reject);
		front.listen(options.port ?? 0, "127.0.0.1", () => resolve());
	});
	const address = front.address();
	const port = typeof address === "object" && address ? address.port : 0;

	return {
		port,
		controlUrl: `http://127.0.0.1:${port}/__sandbox`,
		spkiHash: certificate.spkiHash,
		chromiumFlags: sandboxChromiumFlags(port, certificate.spkiHash),
		setScenario(meetingId, scenario) {
			meetings.set(meetingId, new SandboxMeeting(meetingId, Scenario.parse(scenario), now));
		},
		observed(meetingId) {
			return meetings.get(meetingId)?.observed() ?? null;
		},
		micWav(meetingId) {
			return meetings.get(meetingId)?.micWav() ?? null;
		},
		close() {
			for (const s of sockets) s.destroy();
			return new Promise((resolve) => front.close(() => resolve()));
		},
	};
}

interface PlatformPage {
	html?: string;
	redirect?: string;
}

const SIGN_IN = {
	google_meet: "https://accounts.google.com/v3/signin/identifier?continue=meet",
	zoom: "https://app.zoom.us/signin",
	teams: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=teams",
	// Consumer Teams (teams.live.com) signs in with a Microsoft account (V auth-redirect.ts's hosts).
	teams_live: "https://login.live.com/oauth20_authorize.srf?client_id=teams",
};

const POST_MEETING_PAGE = `<!doctype html><html lang="en"><head><title>Zoom</title></head><body><h1>Thank you for attending</h1></body></html>`;

const SIGN_IN_PAGE = `<!doctype html><html lang="en"><head><title>Sign in</title></head><body><h1>Sign in</h1>
<input type="email" placeholder="Email or phone"><button>Next</button></body></html>`;

/** Microsoft's sign-in form (A: `input[name="loginfmt"]`). */
const MICROSOFT_SIGN_IN_PAGE = `<!doctype html><html lang="en"><head><title>Sign in to your account</title></head><body><h1>Sign in</h1>
<input type="email" name="loginfmt" placeholder="Email, phone, or Skype"><input type="submit" value="Next"></body></html>`;

/** Route a real platform URL (as the bot opens it) to the sandbox page for that platform. */
function platformPage(
	url: URL,
	scenarioOf: (meetingId: string) => Scenario,
	screenOf: (meetingId: string) => PrejoinScreen,
): PlatformPage | null {
	const needsSignIn = (id: string) => scenarioOf(id).sign_in_required;
	const state = (id: string): MeetingPageState => {
		const screen = screenOf(id);
		const scenario = scenarioOf(id);
		return {
			notFound: scenario.not_found,
			interstitial: screen.interstitial ? scenario.interstitial_kind : null,
			layoutChanged: screen.layout_changed,
			language: scenario.ui_language,
			dom: scenario.dom_version,
			traps: scenario.traps,
		};
	};
	const host = url.hostname;
	const segments = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
	if (host === "login.microsoftonline.com" || host === "login.live.com") return { html: MICROSOFT_SIGN_IN_PAGE };
	if (host === "accounts.google.com") return { html: SIGN_IN_PAGE };
	if (host === "meet.google.com" && segments.length === 1 && segments[0])
		return needsSignIn(segments[0]) ? { redirect: SIGN_IN.google_meet } : { html: googleMeetPage(segments[0], state(segments[0])) };
	if (host === "zoom.us" || host.endsWith(".zoom.us")) {
		// Invite links go to the web client, as zoom.us does for a browser without the app.
		if (segments[0] === "j" && segments[1]) {
			const target = new URL(`https://app.zoom.us/wc/${segments[1]}/join`);
			const pwd = url.searchParams.get("pwd");
			if (pwd) target.searchParams.set("pwd", pwd);
			return { redirect: target.toString() };
		}
		if (segments[0] === "signin") return { html: SIGN_IN_PAGE };
		// A post-meeting page (the end modal's OK leads there).
		if (segments[0] === "wc" && segments[1] === "leave") return { html: POST_MEETING_PAGE };
		const id = segments[0] === "wc" ? (segments[1] === "join" ? segments[2] : segments[2] === "join" ? segments[1] : undefined) : undefined;
		if (!id) return null;
		if (needsSignIn(id)) return { redirect: SIGN_IN.zoom };
		// V: Zoom sends some guest joins on to the classic client (/wc/join/<id>): the older page generation.
		if (scenarioOf(id).dom_version === "older" && segments[1] !== "join")
			return { redirect: `/wc/join/${encodeURIComponent(id)}${url.search}` };
		// Before the host starts, every load of the join link shows the 3,001 page (V join.ts).
		const page = state(id);
		return { html: zoomPage(id, { ...page, notFound: page.notFound || !screenOf(id).host_started }) };
	}
	if (host === "teams.microsoft.com" || host === "teams.live.com") {
		const id = segments[0] === "meet" ? segments[1] : segments[0] === "l" && segments[1] === "meetup-join" ? segments[2] : undefined;
		if (!id) return null;
		// org_sign_in: the Teams page itself asks guests to sign in (A's texts) instead of redirecting.
		if (needsSignIn(id) && scenarioOf(id).traps.includes("org_sign_in"))
			return { html: teamsPage(id, { ...state(id), signInRequired: true }) };
		if (needsSignIn(id)) return { redirect: host === "teams.live.com" ? SIGN_IN.teams_live : SIGN_IN.teams };
		return { html: teamsPage(id, state(id)) };
	}
	return null;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
	res.writeHead(status, { "content-type": type, "cache-control": "no-store" }).end(body);
}

function json(res: ServerResponse, status: number, body: unknown): void {
	send(res, status, "application/json", JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const text = Buffer.concat(chunks).toString("utf8");
	return text ? JSON.parse(text) : {};
}
