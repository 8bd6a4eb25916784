/**
 * Live segments (the /ws bundles) carry `created_at`, as the spec's transcript segment does: the
 * time the service first stored the segment, the same value GET /transcripts shows, kept by a
 * draft's confirmation.
 */
import { describe, expect, it } from "vitest";
import type { LiveSegment, TranscriptFrame } from "../../../src/live/frames";
import { eventually, until } from "../../shared/wait";
import { call, json, userWithKey } from "../support";
import { openSocket } from "./bot-sim";
import { liveMeeting, segment } from "./helpers";

describe("live segments", () => {
	it("carry created_at: the stored segment's, kept from the draft by its confirmation", async () => {
		const { key, headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
		await socket.waitFor("subscribed", (m) => m.type === "subscribed");
		const draft = segment({ text: "Hello every", completed: false });
		await bot.send({ type: "segment", segment: draft });
		// Apart in time, so a confirmation stamped anew would show.
		const draftAcked = Date.now();
		await until("the clock past the draft's ack", () => Date.now() > draftAcked);
		await bot.send({ type: "segment", segment: { ...draft, text: "Hello everyone.", completed: true } });
		const live = await eventually("the draft and its confirmation", () => {
			const bundles = socket.messages.filter((m) => m.type === "transcript") as unknown as TranscriptFrame[];
			const pending = bundles.flatMap((b) => b.pending).find((s) => s.segment_id === draft.segment_id);
			const confirmed = bundles.flatMap((b) => b.confirmed).find((s) => s.segment_id === draft.segment_id);
			return pending && confirmed ? { pending, confirmed } : undefined;
		});
		expect(Number.isNaN(Date.parse(live.pending.created_at))).toBe(false);
		expect(live.confirmed.created_at).toBe(live.pending.created_at);
		const stored = await json<{ segments: Pick<LiveSegment, "segment_id" | "created_at">[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers }),
		);
		expect(stored.segments.find((s) => s.segment_id === draft.segment_id)?.created_at).toBe(live.pending.created_at);
		socket.close();
	});
});
