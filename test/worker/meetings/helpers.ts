import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import type { MeetingStream } from "../../../durable-objects/meeting-stream";
import { STREAM_KEYS } from "../../../durable-objects/meeting-stream/storage";
import type { Env } from "../../../src/env";
import { type Meeting, meetCode } from "../../shared/meetings";
import { call, json, roomOf, sharedWorkspace, streamOf, throughWorker, userWithKey } from "../support";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";

export const meetUrl = (code: string) => `https://meet.google.com/${code}`;

export async function createPlan(headers: Record<string, string>, body: Record<string, unknown>): Promise<Meeting> {
	const res = await call("POST", "/meetings", { headers, json: body });
	if (res.status !== 201) throw new Error(`POST /meetings: ${res.status} ${await res.text()}`);
	return json<Meeting>(res);
}

export async function getMeeting(headers: Record<string, string>, id: number): Promise<Meeting> {
	const res = await call("GET", `/meetings/${id}`, { headers });
	if (res.status !== 200) throw new Error(`GET /meetings/${id}: ${res.status} ${await res.text()}`);
	return json<Meeting>(res);
}

export async function sendBot(headers: Record<string, string>, code: string, extra: Record<string, unknown> = {}): Promise<Meeting> {
	const res = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code, ...extra } });
	if (res.status !== 201) throw new Error(`POST /bots: ${res.status} ${await res.text()}`);
	return json<Meeting>(res);
}

/** POST /bots (a Meet meeting of its own unless `body` names one) through the Worker with deployment settings of the test's choosing. */
export function postBotsWith(
	deployment: Partial<Env>,
	headers: Record<string, string>,
	body: Record<string, unknown> = {},
): Promise<Response> {
	const request = new Request("https://gateway.test/bots", {
		method: "POST",
		headers: { ...headers, "content-type": "application/json" },
		body: JSON.stringify({ platform: "google_meet", native_meeting_id: meetCode(), ...body }),
	});
	return throughWorker(request, deployment);
}

/** POST /bots, then a simulated bot on the real channel that reports itself `active`. */
export async function liveMeeting(headers: Record<string, string>, code = meetCode()) {
	const meeting = await sendBot(headers, code);
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("active");
	return { meeting, bot, code };
}

/** Moves every timer an object keeps under its storage map's `timers` key to "now", and runs its alarm. */
async function fireAllTimers(stub: DurableObjectStub<MeetingRoom> | DurableObjectStub<MeetingStream>, timersKey: string) {
	await runInDurableObject(stub, async (_object: MeetingRoom | MeetingStream, state) => {
		const timers = (await state.storage.get<Record<string, number>>(timersKey)) ?? {};
		for (const name of Object.keys(timers)) timers[name] = 0;
		await state.storage.put(timersKey, timers);
	});
	await runDurableObjectAlarm(stub);
}

/** Moves every room timer to "now" and runs the alarm. */
export const fireTimersNow = (id: number) => fireAllTimers(roomOf(id), ROOM_KEYS.timers);

/** The room's named timers (see durable-objects/meeting-room/storage.ts) and its alarm. */
export function roomTimers(id: number) {
	return runInDurableObject(roomOf(id), async (_room: MeetingRoom, state) => ({
		timers: (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {},
		alarm: await state.storage.getAlarm(),
		plan: await state.storage.get<Record<string, unknown>>(ROOM_KEYS.plan),
	}));
}

/** Moves every timer of the meeting's stream object (its copilot's `copilot_final`) to "now" and runs its alarm. */
export const fireStreamTimersNow = (id: number) => fireAllTimers(streamOf(id), STREAM_KEYS.timers);

/** The named timers of the meeting's stream object (see durable-objects/meeting-stream/storage.ts). */
export function streamTimers(id: number) {
	return runInDurableObject(streamOf(id), async (_stream: MeetingStream, state) => ({
		timers: (await state.storage.get<Record<string, number>>(STREAM_KEYS.timers)) ?? {},
	}));
}

export const segment = (
	over: Partial<{ segment_id: string; speaker: string; text: string; start: number; end: number; completed: boolean }>,
) => ({
	segment_id: "s-1",
	speaker: "Alice",
	speaker_source: "caption" as const,
	text: "Hello.",
	start: 1,
	end: 2,
	language: "en",
	completed: true,
	...over,
});

/**
 * A `requested` meeting no room holds: what a launch that broke between claiming the record and
 * handing it over to its room leaves behind.
 */
export async function unheldRequestedMeeting(userId: number, code: string): Promise<number> {
	const now = new Date().toISOString();
	const row = await env.DB.prepare(
		"INSERT INTO meetings (user_id, platform, native_meeting_id, constructed_meeting_url, status, created_at, updated_at) VALUES (?, 'google_meet', ?, ?, 'requested', ?, ?) RETURNING id",
	)
		.bind(userId, code, meetUrl(code), now, now)
		.first<{ id: number }>();
	if (!row) throw new Error("meeting not inserted");
	return row.id;
}

/** An owner's live meeting bound to a fresh workspace, and another member of that workspace. */
export async function workspaceMeeting() {
	const owner = await userWithKey();
	const member = await userWithKey();
	const workspace = await sharedWorkspace(owner.user.id, member.user.id);
	const code = meetCode();
	await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: workspace });
	const { meeting, bot } = await liveMeeting(owner.headers, code);
	return { owner, member, workspace, meeting, bot, code };
}
