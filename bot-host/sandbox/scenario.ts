/**
 * What happens in a sandbox meeting (set per meeting id through the control API) and what
 * the sandbox saw the bot do. Timings are milliseconds: lobby timings from the moment the
 * bot asked to join, in-call timings from its admission.
 */
import { z } from "zod";
import { UI_LANGUAGES } from "../../src/platforms/page-facts.ts";
import { encodeWav } from "../bot/wav.ts";
import { SANDBOX_TRAPS } from "./pages/traps.ts";

export const ScenarioParticipant = z.object({
	name: z.string().min(1).max(100),
	join_after_ms: z.number().int().nonnegative().default(0),
	leave_after_ms: z.number().int().positive().nullable().default(null),
	lines: z.array(z.string().min(1).max(500)).default([]),
	/** Their camera is on: the tiles play their moving picture; off, the platform's avatar or initials. */
	camera_on: z.boolean().default(true),
});

export const Scenario = z.object({
	/** Join straight into the call ("Join now"), no lobby. */
	direct_join: z.boolean().default(false),
	admit_after_ms: z.number().int().nonnegative().default(400),
	deny: z.boolean().default(false),
	deny_after_ms: z.number().int().nonnegative().default(400),
	lobby_forever: z.boolean().default(false),
	/** Teams: the lobby connection drops this long after asking, once; the bot must ask again. */
	lobby_drop_after_ms: z.number().int().positive().nullable().default(null),
	remove_after_ms: z.number().int().positive().nullable().default(null),
	end_after_ms: z.number().int().positive().nullable().default(null),
	/** Guests are sent to the platform's sign-in page (org policy, authenticated-only meetings). */
	sign_in_required: z.boolean().default(false),
	/** The link points at no meeting ("Check your meeting code", Zoom 3,001). */
	not_found: z.boolean().default(false),
	/**
	 * Zoom: the host starts the meeting this long after its page was first served; until then every
	 * load of the join link shows "This meeting link is invalid (3,001)", as for a link to no meeting.
	 */
	host_starts_after_ms: z.number().int().nonnegative().nullable().default(null),
	/**
	 * A screen no driver knows ("Before you join", a policy to review) in place of the pre-join, until
	 * `interstitial_ms` after the meeting page first opened, or (null) until the control API's
	 * `clear_interstitial`: the bot asks for help, then joins once it is gone.
	 */
	interstitial: z.boolean().default(false),
	interstitial_ms: z.number().int().positive().nullable().default(null),
	/** `policy`: a screen no driver knows; `bot_check`: the platform's own bot check (a captcha), which drivers name. */
	interstitial_kind: z.enum(["policy", "bot_check"]).default("policy"),
	/** The join button is renamed (the platform changed its layout) until the control API's `restore_layout`. */
	layout_changed: z.boolean().default(false),
	/**
	 * Captions are shown where no driver looks (a caption layout the drivers do not know) while the
	 * participants still speak, until the control API's `restore_captions`: the bot hears people but
	 * reads no caption.
	 */
	captions_unreadable: z.boolean().default(false),
	/** The language the platform's page is shown in (its texts and labels), whatever the bot asks for. */
	ui_language: z.enum(UI_LANGUAGES).default("en"),
	/** Which generation of the platform's page: the one the peers know today, or the one before it. */
	dom_version: z.enum(["newer", "older"]).default("newer"),
	/**
	 * The language participants speak (ISO code): the page's captions come out right only once the
	 * meeting's caption language is set to it (Meet: Settings, Captions). Null: whatever is set.
	 */
	spoken_language: z.string().min(2).max(16).nullable().default(null),
	/** Traps the page sets for the bot, by name (each platform page lists its own: pages/traps.ts). */
	traps: z
		.array(z.string().refine((trap) => SANDBOX_TRAPS.includes(trap), { message: `a trap is one of: ${SANDBOX_TRAPS.join(", ")}` }))
		.max(20)
		.default([]),
	/**
	 * Meet refuses a join whose browser looks automated (navigator.webdriver, a HeadlessChrome user
	 * agent, a click whose pointer came without a path: runtime.js) with "You can't join this video
	 * call" instead of the lobby. On by default, as on meet.google.com: every bot's launch passes it
	 * (bot/browser.ts, bot/os-input.ts), and the suite's Meet meetings prove so. Off only to measure
	 * the former headless launch (the density bench's comparison).
	 */
	bot_detection: z.boolean().default(true),
	/** Pop-ups the bot must dismiss: Meet's recording notice, Zoom's permission prompt (twice), Teams' audio/video prompt. */
	interruptions: z.boolean().default(false),
	/** Zoom/Teams passcode the join must carry. */
	passcode: z.string().nullable().default(null),
	participants: z.array(ScenarioParticipant).default([]),
	/** Participants speak their lines in turn (round robin), starting this long after admission. */
	speech_start_ms: z.number().int().nonnegative().default(500),
	speech_gap_ms: z.number().int().nonnegative().default(500),
	/**
	 * Words the platform's live captions write otherwise than they were said, as a caption
	 * recognizer does with names it does not know ("Siobhán" shown as "Siobhan"): each key, a
	 * whole word or phrase as the line says it, is shown as its value. The audio is unchanged.
	 */
	caption_heard_as: z
		.record(z.string().min(1).max(100), z.string().min(1).max(100))
		.refine((r) => Object.keys(r).length <= 20, { message: "at most 20 words heard otherwise" })
		.default({}),
	chat: z.array(z.object({ sender: z.string(), text: z.string(), after_ms: z.number().int().nonnegative().default(0) })).default([]),
	/**
	 * The host lets no participant share their screen (Meet's host controls, Zoom's "Who can
	 * share", a Teams attendee role): the page's share control is disabled, answers with the
	 * host's notice, or is not there.
	 */
	host_disabled_screen_share: z.boolean().default(false),
});
export type Scenario = z.infer<typeof Scenario>;

export const DEFAULT_SCENARIO: Scenario = Scenario.parse({
	participants: [{ name: "Sandbox Host", lines: ["Welcome to the sandbox meeting.", "This is a test of the bot."] }],
});

/** A meeting id nobody configured: the platform's "check your meeting code" page. */
export const NOT_FOUND_SCENARIO: Scenario = Scenario.parse({ not_found: true, participants: [] });

export type AttendeePhase = "prejoin" | "lobby" | "in_call" | "denied" | "removed" | "ended" | "left" | "not_found" | "blocked";

/** A forced outcome from the control API, applied on the attendee's next poll. */
export type ControlAction = "admit" | "deny" | "remove" | "end";

/** What an attendee's page polls: its phase, and how the platform shows captions now. */
export interface AttendeeView {
	phase: AttendeePhase;
	captions_unreadable: boolean;
}

/** What the meeting page shows before anyone asks to join, beside the pre-join form itself. */
export interface PrejoinScreen {
	interstitial: boolean;
	layout_changed: boolean;
	/** False until `host_starts_after_ms` has passed (Zoom shows its 3,001 page meanwhile). */
	host_started: boolean;
}

export interface Attendee {
	id: string;
	name: string;
	platform: string;
	askedAt: number;
	admittedAt: number | null;
	leftAt: number | null;
	micOnAtJoin: boolean;
	cameraOnAtJoin: boolean;
	passcodeOk: boolean;
	/** What the page saw of automation when it asked to join (runtime.js); pages that do not check send none. */
	automation: string[];
	/** Microphone and camera state after each switch in the meeting, first entry at join. */
	devices: { mic_on: boolean; camera_on: boolean }[];
	forced: { action: ControlAction; at: number } | null;
	phaseLog: { phase: AttendeePhase; at: number }[];
	/** Who held the speaker view on this attendee's page, from when (runtime-video.js). */
	activeSpeakers: { speaker: string | null; at: number }[];
}

export interface Observed {
	meeting_id: string;
	attendees: {
		name: string;
		platform: string;
		phase: AttendeePhase;
		phases: AttendeePhase[];
		mic_on_at_join: boolean;
		camera_on_at_join: boolean;
		passcode_ok: boolean;
		/** Automation the page saw when the attendee asked to join. */
		automation_signals: string[];
		left: boolean;
		/** When the attendee got into the call and when it left (epoch ms): how long the meeting had it. */
		in_call_at: number | null;
		left_at: number | null;
		mic_on: boolean;
		camera_on: boolean;
		/** Microphone state at join and after every switch. */
		mic_history: boolean[];
		/**
		 * Who held the speaker view on this attendee's page (the last participant who started
		 * speaking), from when (epoch ms); null: nobody, after the one who had it left.
		 */
		active_speakers: { speaker: string | null; at: number }[];
	}[];
	/** Names the bot(s) joined with, in order. */
	bot_names: string[];
	chat_sent: { sender: string; text: string; at: string }[];
	/** Mic level windows (100 ms) while the bot's microphone was on in the call. */
	mic: { windows: number; voiced_windows: number; peak_rms: number; seconds: number };
	/** Frames the meeting saw from the bot's camera; the last one as a 64x36 PNG and its average RGB. */
	camera: { frames: number; last_frame: string | null; last_color: number[] | null };
	/** Every caption text the meeting showed, with when it first appeared (epoch ms). */
	captions_shown: { speaker: string; text: string; at: number }[];
	/**
	 * The bot's screen share as the meeting saw it: frames like the camera's, whether it is
	 * presenting now, and how many presentations it started.
	 */
	screen: ScreenSeen;
	/** What the bot chose on the page: the caption language it set, and its answer to a consent prompt (null: none). */
	choices: PageChoices;
}

export interface PageChoices {
	caption_language: string | null;
	notes_consent: "accepted" | "declined" | null;
}

export interface ScreenSeen {
	frames: number;
	last_frame: string | null;
	last_color: number[] | null;
	presenting: boolean;
	shares: number;
}

export class SandboxMeeting {
	scenario: Scenario;
	readonly attendees = new Map<string, Attendee>();
	readonly chatSent: Observed["chat_sent"] = [];
	readonly captionsShown: Observed["captions_shown"] = [];
	readonly choices: PageChoices = { caption_language: null, notes_consent: null };
	/** The bot's microphone while it was on in the call, 16 kHz mono PCM16 chunks. */
	readonly micAudio: Buffer[] = [];
	readonly mic = { windows: 0, voiced_windows: 0, peak_rms: 0 };
	readonly camera = { frames: 0, last_frame: null as string | null, last_color: null as number[] | null };
	readonly screen: ScreenSeen = { frames: 0, last_frame: null, last_color: null, presenting: false, shares: 0 };
	private forcedForAll: { action: ControlAction; at: number } | null = null;
	/** When a meeting page was first served: `interstitial_ms` counts from there. */
	private pageOpenedAt: number | null = null;
	private interstitialCleared = false;
	private layoutRestored = false;
	private captionsRestored = false;
	readonly id: string;
	private readonly now: () => number;

	constructor(id: string, scenario: Scenario, now: () => number) {
		this.id = id;
		this.scenario = scenario;
		this.now = now;
	}

	ask(name: string, platform: string, micOn: boolean, cameraOn: boolean, passcode: string | null, automation: string[] = []): Attendee {
		const id = `a${this.attendees.size + 1}`;
		const at = this.now();
		const attendee: Attendee = {
			id,
			name,
			platform,
			askedAt: at,
			admittedAt: null,
			leftAt: null,
			micOnAtJoin: micOn,
			cameraOnAtJoin: cameraOn,
			passcodeOk: this.scenario.passcode === null || passcode === this.scenario.passcode,
			automation,
			devices: [{ mic_on: micOn, camera_on: cameraOn }],
			forced: null,
			phaseLog: [],
			activeSpeakers: [],
		};
		this.attendees.set(id, attendee);
		this.phaseOf(attendee);
		return attendee;
	}

	/** Force an outcome now, for every attendee (the control API's `actions`). */
	force(action: ControlAction): void {
		this.forcedForAll = { action, at: this.now() };
	}

	/** The pre-join screen now; `opening`: a meeting page is being served (starts the interstitial's clock). */
	prejoinScreen(opening = false): PrejoinScreen {
		const s = this.scenario;
		if (opening) this.pageOpenedAt ??= this.now();
		const shownFor = this.pageOpenedAt === null ? 0 : this.now() - this.pageOpenedAt;
		const expired = s.interstitial_ms !== null && shownFor >= s.interstitial_ms;
		return {
			interstitial: s.interstitial && !this.interstitialCleared && !expired,
			layout_changed: s.layout_changed && !this.layoutRestored,
			host_started: s.host_starts_after_ms === null || shownFor >= s.host_starts_after_ms,
		};
	}

	/** The control API's `clear_interstitial` and `restore_layout`: what a person fixing things would do. */
	clearInterstitial(): void {
		this.interstitialCleared = true;
	}

	restoreLayout(): void {
		this.layoutRestored = true;
	}

	/** The control API's `restore_captions`: captions are shown where the platform always shows them. */
	restoreCaptions(): void {
		this.captionsRestored = true;
	}

	/** The attendee's phase now, and whether captions are shown where no driver looks. */
	viewOf(a: Attendee): AttendeeView {
		return { phase: this.phaseOf(a), captions_unreadable: this.scenario.captions_unreadable && !this.captionsRestored };
	}

	leave(attendee: Attendee): void {
		attendee.leftAt ??= this.now();
		this.phaseOf(attendee);
	}

	/** The attendee's phase now, derived from the scenario clock and any forced action. */
	phaseOf(a: Attendee): AttendeePhase {
		const phase = this.derivePhase(a);
		if (phase === "in_call" && a.admittedAt === null) a.admittedAt = this.now();
		if (a.phaseLog.at(-1)?.phase !== phase) a.phaseLog.push({ phase, at: this.now() });
		return phase;
	}

	private derivePhase(a: Attendee): AttendeePhase {
		const s = this.scenario;
		const t = this.now();
		const last = a.phaseLog.at(-1)?.phase;
		if (last && ["denied", "removed", "ended", "left", "not_found", "blocked"].includes(last)) return last;
		if (a.leftAt !== null) return "left";
		if (s.not_found || !a.passcodeOk) return "not_found";
		if (s.bot_detection && a.automation.length > 0) return "blocked";
		const forced = a.forced ?? (this.forcedForAll && this.forcedForAll.at >= a.askedAt ? this.forcedForAll : null);
		const admitted = a.admittedAt !== null;
		if (forced?.action === "end") return "ended";
		if (forced?.action === "deny" && !admitted) return "denied";
		if (forced?.action === "remove") return admitted ? "removed" : "denied";
		if (!admitted) {
			if (forced?.action === "admit" || s.direct_join) return "in_call";
			if (s.deny) return t - a.askedAt >= s.deny_after_ms ? "denied" : "lobby";
			if (s.lobby_forever) return "lobby";
			return t - a.askedAt >= s.admit_after_ms ? "in_call" : "lobby";
		}
		const inCallFor = t - (a.admittedAt ?? t);
		if (s.end_after_ms !== null && inCallFor >= s.end_after_ms) return "ended";
		if (s.remove_after_ms !== null && inCallFor >= s.remove_after_ms) return "removed";
		return "in_call";
	}

	/** A report from the page's presentation of the bot's screen share: started, a frame, or ended. */
	screenReport(presenting: boolean, frame: string | null, color: number[] | null): void {
		if (presenting && !this.screen.presenting) this.screen.shares++;
		this.screen.presenting = presenting;
		if (frame) {
			this.screen.frames++;
			this.screen.last_frame = frame;
			this.screen.last_color = color;
		}
	}

	micWav(): Buffer {
		return encodeWav(Buffer.concat(this.micAudio), 16_000);
	}

	observed(): Observed {
		const attendees = [...this.attendees.values()];
		return {
			meeting_id: this.id,
			attendees: attendees.map((a) => ({
				name: a.name,
				platform: a.platform,
				phase: a.phaseLog.at(-1)?.phase ?? "prejoin",
				phases: a.phaseLog.map((p) => p.phase),
				mic_on_at_join: a.micOnAtJoin,
				camera_on_at_join: a.cameraOnAtJoin,
				passcode_ok: a.passcodeOk,
				automation_signals: [...a.automation],
				left: a.leftAt !== null,
				in_call_at: a.admittedAt,
				left_at: a.leftAt,
				mic_on: a.devices.at(-1)?.mic_on ?? false,
				camera_on: a.devices.at(-1)?.camera_on ?? false,
				mic_history: a.devices.map((d) => d.mic_on).filter((on, i, all) => i === 0 || on !== all[i - 1]),
				active_speakers: [...a.activeSpeakers],
			})),
			bot_names: attendees.map((a) => a.name),
			chat_sent: [...this.chatSent],
			mic: { ...this.mic, seconds: this.micAudio.reduce((n, b) => n + b.length, 0) / 2 / 16_000 },
			camera: { ...this.camera },
			captions_shown: [...this.captionsShown],
			choices: { ...this.choices },
			screen: { ...this.screen },
		};
	}
}
