/**
 * Nothing follows a meeting's end (docs/meeting-stream.md#events-and-resume): not on its stream,
 * where `meeting-end` is the last event and a reader resuming after it gets the close at once, and
 * not on /ws, where the final status is the meeting's last frame. Also when the bot's messages
 * keep arriving after the end (a line already on its way behind its end report, or flushed after
 * the room ended the meeting), with or without a copilot: the record keeps them, no live reader gets them.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingStreamEvent as Frame } from "../../../src/agent/meeting-stream-events";
import { ROOM_CLOSE } from "../../../src/bot-channel/protocol";
import { eventually, until } from "../../shared/wait";
import { copilotOwner, startCopilot } from "../agent/copilot-helpers";
import { readToTheEnd } from "../agent/sse";
import { call } from "../support";
import { openSocket } from "./bot-sim";
import { liveMeeting, segment } from "./helpers";

describe("after a meeting's end", () => {
	it.each(["no copilot", "a copilot"])("nothing the bot still sends reaches the stream or /ws (%s)", async (copilot) => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		if (copilot === "a copilot") await startCopilot(owner.headers, live.code);
		const watcher = await openSocket("/ws", owner.headers);
		watcher.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: live.code }] });
		await watcher.waitFor("subscribed", (m) => m.type === "subscribed");
		await live.bot.send({ type: "segment", segment: segment({ segment_id: "before", text: "Before the end" }) });
		// The end, and right behind it (not waiting for its ack) a line the bot flushed as it left.
		const now = new Date().toISOString();
		live.bot.channel.send({ type: "status", status: "completed", completion_reason: "left_alone", timestamp: now, seq: 3 });
		live.bot.channel.send({ type: "segment", segment: segment({ segment_id: "after", text: "Said as it left" }), seq: 4 });
		await until("the channel closed as ended", () => live.bot.channel.closed?.code === ROOM_CLOSE.meetingEnded);
		await watcher.pingPong();

		const open = (lastEventId?: number) =>
			call("GET", `/agent/meeting/stream?meeting_id=${live.code}`, {
				headers: lastEventId === undefined ? owner.headers : { ...owner.headers, "Last-Event-ID": String(lastEventId) },
			});
		const events = await readToTheEnd<Frame>(await open());
		expect(events.map((e) => e.frame.type)).toEqual(["transcript", ...(copilot === "a copilot" ? ["note"] : []), "meeting-end"]);
		expect(await readToTheEnd<Frame>(await open(events.at(-1)?.id))).toEqual([]);

		// The record keeps what was said; only the live readers are not told after the end.
		const kept = await eventually(
			"the late line in the transcript",
			async () =>
				(await env.DB.prepare("SELECT text FROM transcript_segments WHERE meeting_id = ? AND segment_id = 'after'")
					.bind(live.meeting.id)
					.first<{ text: string }>()) ?? undefined,
		);
		expect(kept.text).toBe("Said as it left");
		const frames = watcher.messages.filter((m) => m.type === "transcript" || m.type === "meeting.status");
		expect(frames.at(-1)).toMatchObject({ type: "meeting.status", payload: { status: "completed" } });
		expect(JSON.stringify(frames)).not.toContain("Said as it left");
		watcher.close();
	});
});
