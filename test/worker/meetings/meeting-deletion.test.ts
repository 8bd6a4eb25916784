/**
 * Deleting an ended meeting (docs/retention.md#deleting-a-meeting): every store is listed before
 * and after, and nothing of the meeting is left on any of them; the receipt says what was there;
 * another meeting of the same account keeps everything; a store that refuses keeps the meeting,
 * is named in the answer, and DELETE again finishes.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { MeetingDeletionReceipt } from "../../../src/routes/meeting-schemas";
import { catchUpPartitions } from "../../../src/search/partitions";
import { meetCode } from "../../shared/meetings";
import { search } from "../search/search-helpers";
import { call, expectDocumented, json, sharedWorkspace, userWithKey } from "../support";
import { openSocket, type SocketClient } from "./bot-sim";
import { bucketRefusingDeletes, Faults, failingObjects } from "./broken-env";
import { finishedMeeting, owner } from "./finished-meeting";
import { createPlan, getMeeting, sendBot } from "./helpers";
import { type MeetingStores, NOTHING, storesOf } from "./meeting-stores";

type Receipt = z.infer<typeof MeetingDeletionReceipt>;
/** Straight through the Worker, with bindings a test may swap (a bucket that refuses). */
async function deleteMeeting(id: number, headers: Record<string, string>, bindings: Env = env as Env): Promise<Response> {
	const ctx = createExecutionContext();
	const res = await worker.fetch(new Request(`https://gateway.test/meetings/${id}`, { method: "DELETE", headers }), bindings, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

/** What the receipt should say for what the stores held. */
function expectedReceipt(before: MeetingStores): Receipt["removed"] {
	const { search_changes: _pending, ...database } = before.database;
	const objects = (prefix: string) => before.objects.filter((key) => key.startsWith(prefix)).length;
	return {
		database,
		objects: { recordings: objects("recordings/"), screenshots: objects("screenshots/"), transcript_cache: objects("transcript-cache/") },
		meeting_room: { keys: before.room.keys.length, rows: before.room.rows },
		meeting_stream: { keys: before.stream.keys.length, rows: before.stream.rows },
		search_index: { rows: before.search.segments },
		webhook_outbox: { events: before.outbox },
	};
}

async function subscribedSocket(headers: Record<string, string>, code: string): Promise<SocketClient> {
	const socket = await openSocket("/ws", headers);
	socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
	await socket.waitFor("subscribed", (m) => m.type === "subscribed");
	return socket;
}

describe("DELETE /meetings/{id} of an ended meeting", () => {
	it("leaves nothing of it on any store, answers a receipt of what was there, and keeps the account's other meeting", async () => {
		const who = await owner();
		const gone = await finishedMeeting(who, "erased");
		const kept = await finishedMeeting(who, "kept");
		const watcher = await subscribedSocket(who.headers, gone.code);

		const before = await storesOf(gone);
		// Every store holds something of it, so "nothing left" below means something.
		expect(Object.keys(before.database)).toEqual(
			expect.arrayContaining([
				"meetings",
				"transcript_segments",
				"chat_messages",
				"meeting_participants",
				"transcript_shares",
				"transcript_versions",
				"recordings",
				"media_files",
				"media_file_parts",
				"webhook_deliveries",
			]),
		);
		expect(before.database.transcript_segments).toBe(3);
		for (const prefix of [
			`recordings/${who.user.id}/${gone.id}/`,
			`screenshots/${who.user.id}/${gone.id}/1/`,
			`transcript-cache/${gone.id}/`,
		]) {
			expect(
				before.objects.some((key) => key.startsWith(prefix)),
				prefix,
			).toBe(true);
		}
		expect(before.room.keys.length).toBeGreaterThan(0);
		expect(before.stream.rows.stream_events).toBeGreaterThanOrEqual(4);
		expect(before.search).toEqual({ segments: 3, words: 3, meetings: 1 });
		expect(before.feed).toBe(1);
		expect((await getMeeting(who.headers, gone.id)).data.diagnostics).toBeDefined();
		const keptBefore = await storesOf(kept);

		const res = await deleteMeeting(gone.id, who.headers);
		const receipt = await expectDocumented(MeetingDeletionReceipt, res);
		expect(receipt).toEqual({ status: "deleted", meeting_id: gone.id, removed: expectedReceipt(before), failed: [], pending: [] });

		expect(await watcher.waitFor("unsubscribed", (m) => m.type === "unsubscribed")).toEqual({
			type: "unsubscribed",
			meetings: [{ platform: "google_meet", native_id: gone.code }],
			reason: "access_revoked",
		});
		expect(await storesOf(gone)).toEqual(NOTHING);
		expect((await search(who.headers, { q: gone.marker })).total).toBe(0);
		expect((await call("GET", `/meetings/${gone.id}`, { headers: who.headers })).status).toBe(404);
		expect((await call("GET", `/transcripts/google_meet/${gone.code}`, { headers: who.headers })).status).toBe(404);
		// Safe to repeat: there is nothing left to find.
		expect((await deleteMeeting(gone.id, who.headers)).status).toBe(404);

		expect(await storesOf(kept)).toEqual(keptBefore);
		expect((await search(who.headers, { q: kept.marker })).total).toBe(3);
		watcher.close();
	});

	it("keeps the meeting while the bucket refuses, names the store, and finishes when asked again", async () => {
		const who = await owner();
		const meeting = await finishedMeeting(who, "retried");
		const before = await storesOf(meeting);
		const refusing = bucketRefusingDeletes(env.RECORDINGS);

		const first = await deleteMeeting(meeting.id, who.headers, { ...(env as Env), RECORDINGS: refusing });
		expect(first.status).toBe(503);
		expect(first.headers.get("retry-after")).toBe("5");
		const incomplete = await json<Receipt & { detail: string }>(first);
		expect(incomplete).toMatchObject({ status: "incomplete", meeting_id: meeting.id, removed: { database: {} } });
		expect(incomplete.failed).toEqual(expect.arrayContaining(["objects.recordings", "objects.screenshots", "objects.transcript_cache"]));
		expect(incomplete.detail).toContain("delete it again");
		// The record and everything in D1 and the bucket stay for the retry to find.
		expect((await getMeeting(who.headers, meeting.id)).status).toBe("failed");
		const between = await storesOf(meeting);
		expect(between.database).toEqual(before.database);
		expect(between.objects).toEqual(before.objects);

		const second = await deleteMeeting(meeting.id, who.headers);
		expect(second.status).toBe(200);
		const done = await json<Receipt>(second);
		expect(done).toMatchObject({ status: "deleted", failed: [], pending: [] });
		expect(done.removed.objects.recordings).toBe(before.objects.filter((k) => k.startsWith("recordings/")).length);
		expect(await storesOf(meeting)).toEqual(NOTHING);
	});

	it("says when its search rows go later, and the cron's catch-up takes them", async () => {
		const who = await owner();
		const meeting = await finishedMeeting(who, "pending");
		const unreachable = failingObjects(env.TRANSCRIPT_INDEX, "forgetMeeting", new Faults(1));
		const res = await deleteMeeting(meeting.id, who.headers, { ...(env as Env), TRANSCRIPT_INDEX: unreachable });
		const receipt = await expectDocumented(MeetingDeletionReceipt, res);
		expect(receipt).toMatchObject({ status: "deleted", failed: [], pending: ["search_index"], removed: { search_index: null } });
		expect((await call("GET", `/meetings/${meeting.id}`, { headers: who.headers })).status).toBe(404);
		// The partition still holds the rows, and D1's search log the meeting's removal, until the cron runs.
		expect((await storesOf(meeting)).search.segments).toBe(3);
		// Each run nudges a bounded number of partitions, and other tests' partitions share the log:
		// runs go on until this one's turn came (each run drains the partitions it nudged).
		for (let run = 0; run < 20 && (await storesOf(meeting)).search.segments > 0; run++) await catchUpPartitions(env as Env);
		expect(await storesOf(meeting)).toEqual(NOTHING);
	});

	it("takes a workspace meeting out of the workspace's search partition and its members' live feeds", async () => {
		const who = await owner();
		const member = await userWithKey();
		const workspace = await sharedWorkspace(who.user.id, member.user.id);
		const meeting = await finishedMeeting(who, "shared", workspace);
		const memberSocket = await subscribedSocket(member.headers, meeting.code);
		expect((await search(member.headers, { q: meeting.marker })).total).toBe(3);
		const before = await storesOf(meeting);
		expect(before.search).toEqual({ segments: 3, words: 3, meetings: 1 });

		const receipt = await expectDocumented(MeetingDeletionReceipt, await deleteMeeting(meeting.id, who.headers));
		expect(receipt.removed.search_index).toEqual({ rows: 3 });
		expect(await storesOf(meeting)).toEqual(NOTHING);
		expect((await search(member.headers, { q: meeting.marker })).total).toBe(0);
		expect(await memberSocket.waitFor("unsubscribed", (m) => m.type === "unsubscribed")).toMatchObject({ reason: "access_revoked" });
		memberSocket.close();
	});

	it("still answers 204 for a plan and 409 for a live meeting", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { title: "T" });
		expect((await call("DELETE", `/meetings/${plan.id}`, { headers })).status).toBe(204);
		const live = await sendBot(headers, meetCode());
		expect((await call("DELETE", `/meetings/${live.id}`, { headers })).status).toBe(409);
		expect((await getMeeting(headers, live.id)).status).toBe("requested");
	});

	it("answers 404 for someone else's ended meeting and keeps it", async () => {
		const who = await owner();
		const meeting = await finishedMeeting(who, "foreign");
		const stranger = await userWithKey();
		expect((await deleteMeeting(meeting.id, stranger.headers)).status).toBe(404);
		expect((await getMeeting(who.headers, meeting.id)).status).toBe("failed");
	});
});
