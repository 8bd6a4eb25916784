import type { AutomaticLeave, Platform, SpawnRequest } from "../bot-channel/protocol";
import { isUniqueViolation } from "../db";
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { findMeetingOnLink, findOpenMeetingOnLink, nowIso } from "../meetings/meeting-store";
import { initialState, isLive, isPlanned, type MeetingStatus } from "../meetings/status-machine";
import { type Announce, createMeeting, moveMeeting, removeMeeting, unannounced } from "../meetings/status-writes";
import { accountObject } from "../objects";
import { endpointAllowed, loadSettings, type ResolvedSettings, resolveSettings } from "../settings/account-settings";
import type { TranscriptionEngine } from "../shapes/transcription";
import { refuseOverUsageCaps } from "../usage/account-usage";
import { botLaunchConfig, recordingPartsUrl } from "./bot-endpoints";
import { type RecordingConfig, recordingPlan } from "./recording-config";
import { chooseEngine, requireEngineUsable } from "./transcription-engine";
import { mergeVocabulary, planVocabulary } from "./vocabulary";

export const DEFAULT_BOT_NAME = "Notetaker";

/** What a caller asks of a bot: POST /bots fields, or a plan's stored options for auto-join. */
export interface BotOptions {
	bot_name?: string | null;
	language?: string | null;
	task?: "transcribe" | "translate" | null;
	passcode?: string | null;
	recording_enabled?: boolean | null;
	/** What the recording holds (docs/api.md#recording-config); defaults fill what it leaves out. */
	recording_config?: RecordingConfig | null;
	transcribe_enabled?: boolean | null;
	/** The engine this bot transcribes with (docs/api.md#transcription-engines); null: the account's, else the deployment's. */
	transcription_engine?: TranscriptionEngine | null;
	voice_agent_enabled?: boolean | null;
	automatic_leave?: AutomaticLeave | null;
	/** The bot's own words and names (docs/api.md#vocabulary). */
	vocabulary?: string[] | null;
}

export interface LaunchTarget {
	userId: number;
	maxConcurrent: number;
	platform: Platform;
	nativeMeetingId: string;
	meetingUrl: string;
}

/** What the MeetingRoom needs to take over: the record and the spawn, less the channel. */
export interface RoomStart {
	meeting: MeetingRow;
	/** The planned status the record was claimed from; null for a record made for this bot. */
	previousStatus: MeetingStatus | null;
	/** The user's earlier, ended meeting on the same link: its live watchers follow to this one. */
	previousMeetingId: number | null;
	actor: "user" | "scheduler";
	/**
	 * The spawn request less what the room adds per attempt: the attempt, its channel, and the
	 * Worker's transcription relays, given when `transcription` says the bot uses the endpoint
	 * (`openai`) and when `engine` is a streaming provider (`transcription_stream`).
	 */
	spawn: Omit<SpawnRequest, "channel" | "recording_upload_url" | "attempt" | "transcription" | "transcription_stream"> & {
		transcription: boolean;
	};
	link: string;
}

export const slotKey = (platform: string, nativeId: string) => `${platform}:${nativeId}`;

/**
 * Claims a bot slot, then turns the link's planned record (or a new one) into a `requested`
 * meeting and hands it to its room (`handOff`). The slot is held before any row changes, so the
 * cap is exact. A deployment that cannot give a bot its addresses refuses first, with nothing
 * claimed. Everything that can fail on its own (settings, unsealing secrets, the account's usage
 * caps: src/usage/account-usage.ts) runs before the claim; whatever still fails after it, up to
 * and including the hand-off, gives the slot back and undoes the claim, so no meeting is left
 * `requested` without a room.
 */
export async function launchBot<T>(
	env: Env,
	target: LaunchTarget,
	options: BotOptions,
	actor: RoomStart["actor"],
	handOff: (start: RoomStart) => Promise<T>,
): Promise<{ start: RoomStart; handedOff: T }> {
	botLaunchConfig(env);
	const link = slotKey(target.platform, target.nativeMeetingId);
	const existing = await findOpenMeetingOnLink(env, target.userId, target.platform, target.nativeMeetingId);
	const earlier = existing
		? undefined
		: await findMeetingOnLink(env, target.userId, target.platform, target.nativeMeetingId, { ownedOnly: true });
	if (existing && isLive(existing.status as MeetingStatus)) throw alreadyActive(target);
	const { spawnFor, engine } = await spawnSpec(env, target.userId, options, existing?.botOptions as BotOptions | undefined);
	// The account's usage caps refuse before anything is claimed, so a refusal changes nothing.
	const recording = options.recording_enabled ?? (existing?.botOptions as BotOptions | undefined)?.recording_enabled ?? false;
	await refuseOverUsageCaps(env, target.userId, { recording }, new Date());

	const claim = await accountObject(env, target.userId).claimBotSlot(link, target.maxConcurrent);
	if (!claim.ok) {
		if (claim.reason === "already_active") throw alreadyActive(target);
		const detail =
			claim.reason === "depleted"
				? "Concurrent bot limit is 0 for this account: no bots can be started"
				: `Maximum concurrent bots limit reached (${claim.held}/${claim.cap})`;
		throw new ApiError(429, detail, { "Retry-After": "30" });
	}
	let claimed: MeetingRow | undefined;
	try {
		const meeting = await claimOrCreateMeeting(env, target, options, existing, actor, engine);
		claimed = meeting;
		await accountObject(env, target.userId).bindBotSlot(link, meeting.id);
		const previousStatus = existing && isPlanned(existing.status as MeetingStatus) ? (existing.status as MeetingStatus) : null;
		const previousMeetingId = earlier && earlier.id !== meeting.id ? earlier.id : null;
		const start: RoomStart = { meeting, previousStatus, previousMeetingId, actor, link, spawn: spawnFor(meeting) };
		return { start, handedOff: await handOff(start) };
	} catch (err) {
		if (claimed) await undoClaim(env, claimed, existing, actor).catch(() => console.error("launch: claim not undone", claimed?.id));
		await accountObject(env, target.userId).releaseBotSlot(link);
		throw err;
	}
}

/**
 * The claim is announced by the room once it holds the meeting (RoomLaunch), with the record the
 * claim wrote; so the claim itself, and its undoing when the hand-off broke, announce nothing here.
 */
const announcedByRoom: Announce = unannounced;

/** Puts a claimed record back as it was: a plan goes back to its plan, a record made for this launch goes. */
async function undoClaim(env: Env, claimed: MeetingRow, existing: MeetingRow | undefined, actor: RoomStart["actor"]): Promise<void> {
	if (existing && isPlanned(existing.status as MeetingStatus)) {
		await moveMeeting(
			env,
			{
				meetingId: claimed.id,
				current: initialState("requested"),
				ask: { to: existing.status as MeetingStatus, actor },
				values: { botName: existing.botName, botOptions: existing.botOptions, passcode: existing.passcode },
			},
			unannounced,
		);
		return;
	}
	await removeMeeting(env, claimed, "user", unannounced);
}

function alreadyActive(target: LaunchTarget): ApiError {
	return new ApiError(409, `A bot is already active for ${target.platform}/${target.nativeMeetingId}`);
}

async function claimOrCreateMeeting(
	env: Env,
	target: LaunchTarget,
	options: BotOptions,
	existing: MeetingRow | undefined,
	actor: RoomStart["actor"],
	engine: TranscriptionEngine | null,
): Promise<MeetingRow> {
	const now = nowIso();
	const botFields = {
		botName: options.bot_name || existing?.botName || DEFAULT_BOT_NAME,
		botOptions: { ...(existing?.botOptions ?? {}), ...stripNulls(options) },
		passcode: options.passcode ?? existing?.passcode ?? null,
		startTime: null,
		joiningAt: null,
		endTime: null,
		completionReason: null,
		failureStage: null,
	};
	if (existing && isPlanned(existing.status as MeetingStatus)) {
		// Claimed in place: title, schedule, workspace and anything already stored stay.
		const claim = await moveMeeting(
			env,
			{
				meetingId: existing.id,
				current: initialState(existing.status as MeetingStatus),
				ask: { to: "requested", actor },
				values: botFields,
				// What this bot transcribes with; a plan's earlier bot's engine is replaced (or removed: transcription off).
				data: { transcription_engine: engine },
			},
			announcedByRoom,
		);
		if (claim.ok && claim.row) return claim.row;
		throw alreadyActive(target);
	}
	try {
		return await createMeeting(
			env,
			{
				...botFields,
				status: "requested",
				userId: target.userId,
				platform: target.platform,
				nativeMeetingId: target.nativeMeetingId,
				constructedMeetingUrl: target.meetingUrl,
				data: engine ? { transcription_engine: engine } : {},
				createdAt: now,
				updatedAt: now,
			},
			actor,
			announcedByRoom,
		);
	} catch (err) {
		if (isUniqueViolation(err)) throw alreadyActive(target);
		throw err;
	}
}

function stripNulls<T extends object>(o: T): Partial<T> {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}

/**
 * The bot's spawn request for a claimed record, and the engine it transcribes with (null with
 * transcription off). Settings are read (and secrets unsealed) and the engine chosen here, before
 * any row changes (an engine without its key or endpoint is a 422 then); what is left for the
 * record itself cannot fail. `planned`: the options a plan stored, which the claim keeps.
 */
async function spawnSpec(
	env: Env,
	userId: number,
	options: BotOptions,
	planned: BotOptions | undefined,
): Promise<{ spawnFor: (meeting: MeetingRow) => RoomStart["spawn"]; engine: TranscriptionEngine | null }> {
	const settings = await resolveSettings(env, await loadSettings(env, userId));
	const transcribing = options.transcribe_enabled ?? planned?.transcribe_enabled ?? true;
	let engine: TranscriptionEngine | null = null;
	if (transcribing) {
		engine = chooseEngine(env, settings.transcription, options.transcription_engine ?? planned?.transcription_engine);
		requireEngineUsable(env, settings.transcription, engine);
		if (engine === "openai" && !transcriptionEndpointUsable(env, settings.transcription)) engine = "captions";
	}
	const spawnFor = (meeting: MeetingRow): RoomStart["spawn"] => {
		const stored = meeting.botOptions as BotOptions;
		const pick = <K extends keyof BotOptions>(k: K): BotOptions[K] => options[k] ?? stored[k] ?? null;
		const recording = pick("recording_enabled") ?? false;
		return {
			meeting_id: meeting.id,
			platform: meeting.platform as Platform,
			native_meeting_id: meeting.nativeMeetingId ?? "",
			meeting_url: meeting.constructedMeetingUrl ?? "",
			passcode: meeting.passcode,
			bot_name: meeting.botName ?? DEFAULT_BOT_NAME,
			language: pick("language") ?? null,
			task: pick("task") ?? "transcribe",
			recording_enabled: recording,
			...(recording ? { recording: recordingPlan(pick("recording_config")), recording_parts_url: recordingPartsUrl(env, meeting.id) } : {}),
			transcribe_enabled: pick("transcribe_enabled") ?? true,
			voice_agent_enabled: pick("voice_agent_enabled") ?? true,
			automatic_leave: pick("automatic_leave") ?? {},
			engine: engine ?? "captions",
			transcription: engine === "openai",
			// The bot's own list first: the merged list is capped, and the bot's is the most specific.
			vocabulary: mergeVocabulary(pick("vocabulary"), settings.transcription.vocabulary, planVocabulary(meeting.data)),
		};
	};
	return { spawnFor, engine };
}

/**
 * Whether the bot transcribes through an endpoint (relayed by the Worker, which adds its token)
 * rather than the platform's captions. An account's address the guard now refuses is not used.
 */
function transcriptionEndpointUsable(env: Env, t: ResolvedSettings["transcription"]): boolean {
	if (!t.url) return false;
	const check = endpointAllowed(env, t.url, t.owner);
	if (!check.ok) {
		console.warn("transcription address refused by the outbound guard; the bot uses captions", check.reason);
		return false;
	}
	return true;
}

/** The account's current cap, for auto-join (it has no request identity to take it from). */
export { accountCap } from "../gateway/user-store";
