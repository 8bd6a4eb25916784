import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { MeetingStream } from "../../../durable-objects/meeting-stream";
import type { LiveMeeting } from "../../../durable-objects/meeting-stream/copilot-state";
import { STREAM_TABLE } from "../../../durable-objects/meeting-stream/storage";
import type { MeetingStreamBody } from "../../../src/agent/meeting-stream-events";
import { workspaceObject } from "../../../src/objects";
import { homeWorkspace } from "../../../src/workspace/workspace-names";
import { eventually } from "../../shared/wait";
import { segment } from "../meetings/helpers";
import { ADMIN, call, createUser, json, streamOf } from "../support";
import { MODEL_KEY, MODEL_NAME } from "./helpers";

export type { LiveMeeting as LiveMeetingRecord } from "../../../durable-objects/meeting-stream/copilot-state";

export async function startCopilot(headers: Record<string, string>, code: string, title?: string): Promise<LiveMeeting> {
	const res = await call("POST", "/agent/api/meeting/start", { headers, json: { native_id: code, platform: "google_meet", title } });
	expect(res.status, await res.clone().text()).toBe(202);
	return json<LiveMeeting>(res);
}

export function processCopilot(headers: Record<string, string>, code: string, on: boolean) {
	return call("POST", "/agent/meeting/process", { headers, json: { native_id: code, platform: "google_meet", on } });
}

/** Every event the meeting's stream logged, oldest first (read from its MeetingStream's own SQLite log). */
export function streamEvents(meetingId: number): Promise<{ seq: number; event: MeetingStreamBody }[]> {
	return runInDurableObject(streamOf(meetingId), async (_stream: MeetingStream, state) =>
		state.storage.sql
			.exec<{ seq: number; data: string }>(`SELECT seq, data FROM ${STREAM_TABLE} ORDER BY seq`)
			.toArray()
			.map((row) => ({ seq: row.seq, event: JSON.parse(row.data) as MeetingStreamBody })),
	);
}

export const ofType = <T extends MeetingStreamBody["type"]>(events: { event: MeetingStreamBody }[], type: T) =>
	events.map((e) => e.event).filter((e): e is Extract<MeetingStreamBody, { type: T }> => e.type === type);

/** A completed segment from `speaker`, with an id of its own. */
export const said = (id: string, speaker: string, text: string, start = 1) =>
	({ type: "segment", segment: segment({ segment_id: id, speaker, text, start, end: start + 1 }) }) as const;

/** A file of the user's home workspace, or null. */
export function workspaceFile(userId: number, path: string) {
	return workspaceObject(env, homeWorkspace(userId)).read(path);
}

/** Polls for the meeting document; runs the stream object's alarm meanwhile (its `copilot_final` timer writes it). */
export function meetingDocument(userId: number, meetingId: number, path: string) {
	return eventually(`${path} in the workspace of user ${userId}`, async () => {
		const file = await workspaceFile(userId, path).catch(() => null);
		if (file) return file;
		await runDurableObjectAlarm(streamOf(meetingId));
		return undefined;
	});
}

/** A key minted through the admin API, with its id (to revoke it later). */
export async function mintKeyWithId(userId: number): Promise<{ id: number; token: string }> {
	const res = await call("POST", `/admin/users/${userId}/tokens?scopes=bot,tx`, { headers: ADMIN });
	expect(res.status).toBe(201);
	return json<{ id: number; token: string }>(res);
}

/** A user with a key (and its id); with `model`, /user/models points at the scripted model server. */
export async function copilotOwner(model = true) {
	const user = await createUser();
	const key = await mintKeyWithId(user.id);
	const headers = { "X-API-Key": key.token };
	if (model) {
		const res = await call("PUT", "/user/models", {
			headers,
			json: { base_url: `${env.MODEL_SERVER_URL}/v1`, api_key: MODEL_KEY, model: MODEL_NAME },
		});
		expect(res.status).toBe(200);
		await res.body?.cancel();
	}
	return { user, keyId: key.id, headers };
}
