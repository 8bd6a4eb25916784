/**
 * A meeting that had everything a meeting can leave behind (docs/retention.md#what-a-meeting-leaves-where),
 * for the deletion and retention tests: each store then holds something of it.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { cut, streamParts, webmFixture } from "../recordings/parts-helpers";
import { sineWav } from "../recordings/wav-fixture";
import { pngBytes, uploadScreenshot } from "../screenshots/fixtures";
import { searchUntil, uniqueWord } from "../search/search-helpers";
import { call, userWithKey } from "../support";
import { newHook } from "../webhooks/receiver";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { createPlan, getMeeting, meetUrl, segment, sendBot } from "./helpers";
import { type MeetingRef, storesOf } from "./meeting-stores";

export type Owner = Awaited<ReturnType<typeof userWithKey>>;

/** An owner whose webhook events (every status step) reach the local receiver, so delivery rows exist. */
export async function owner(): Promise<Owner> {
	const u = await userWithKey();
	const res = await call("PUT", "/user/webhook", {
		headers: u.headers,
		json: { webhook_url: newHook().url, webhook_events: { "meeting.status_change": true } },
	});
	expect(res.status).toBe(200);
	return u;
}

/**
 * A meeting that had everything: a plan with a title, a recording bot that was in the call, three
 * segments, chat, a participant, a screenshot, a recording, a public share, an export, search rows,
 * a stream log, webhook deliveries; it failed with diagnostics. Its marker word is in all it said.
 * Bound to `workspace` when one is given (its search rows are then in that workspace's partition).
 */
export async function finishedMeeting(who: Owner, label: string, workspace?: string): Promise<MeetingRef & { code: string }> {
	const marker = uniqueWord(label);
	const code = meetCode();
	await createPlan(who.headers, {
		meeting_url: meetUrl(code),
		title: `Review ${marker}`,
		...(workspace ? { workspace_id: workspace } : {}),
	});
	const meeting = await sendBot(who.headers, code, { recording_enabled: true });
	const spawn = await spawnRequestFor(meeting.id);
	const bot = await SimulatedBot.connect(spawn);
	await bot.status("active");
	for (let i = 1; i <= 3; i++) {
		await bot.send({ type: "segment", segment: segment({ segment_id: `s-${i}`, text: `${marker} point ${i}`, start: i, end: i + 1 }) });
	}
	await bot.send({ type: "chat", message: { sender: "Alice", text: `see ${marker}`, timestamp: Date.now(), is_from_bot: false } });
	await bot.send({ type: "participant", event: "join", participant: { id: "p-1", name: "Alice" }, timestamp: new Date().toISOString() });
	expect((await uploadScreenshot(spawn, "failure.png", pngBytes())).status).toBe(201);
	// A video file streamed in parts (its part rows and objects), then the WAV that joins its recording.
	const video = webmFixture("video");
	await streamParts(spawn, "video", cut(video, [Math.floor(video.length / 2)]));
	const wav = sineWav(0.5);
	const upload = await SELF.fetch(`https://gateway.test/internal/recordings/${meeting.id}`, {
		method: "PUT",
		headers: { authorization: `Bearer ${spawn.channel.token}`, "content-type": "audio/wav", "content-length": String(wav.length) },
		body: wav,
	});
	expect(upload.status).toBe(201);
	await bot.status("failed", {
		completion_reason: "evicted",
		diagnostics: {
			steps: [{ at: new Date().toISOString(), step: "removed" }],
			page_state: "removed",
			page_text: "You were removed",
			screenshot: "failure.png",
		},
	});
	expect((await getMeeting(who.headers, meeting.id)).status).toBe("failed");
	expect((await call("POST", `/transcripts/google_meet/${code}/share`, { headers: who.headers })).status).toBe(200);
	expect((await call("GET", `/transcripts/google_meet/${code}?format=srt`, { headers: who.headers })).status).toBe(200);
	await searchUntil(who.headers, { q: marker }, 3);
	const ref = { id: meeting.id, userId: who.user.id, scope: workspace ? `w:${workspace}` : `u:${who.user.id}`, marker, code };
	// Webhook deliveries are written after the steps, by the account's outbox: wait until it has sent
	// every event of the meeting, or a late delivery row lands between a test's two readings.
	await eventually("every delivery row", async () => {
		const stores = await storesOf(ref);
		return stores.database.webhook_deliveries && stores.outbox === 0 ? true : undefined;
	});
	return ref;
}
