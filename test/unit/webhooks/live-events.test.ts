import { type Schema, Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import type { BotSegment } from "../../../src/bot-channel/protocol";
import { WebhookEnvelope, type WebhookParticipantEvent, type WebhookTranscriptSegments } from "../../../src/shapes/webhook";
import {
	liveEventId,
	liveOrderKey,
	participantEvent,
	segmentDigest,
	transcriptSegmentsEvent,
	webhookSegment,
} from "../../../src/webhooks/live-events";
// Golden live events (docs/webhooks.md#live-events), the wire shape receivers parse.
import participantGolden from "../../worker/webhooks/golden/Envelope.participant-joined.json";
import segmentsGolden from "../../worker/webhooks/golden/Envelope.transcript-segments.json";
import webhookContract from "../../worker/webhooks/golden/webhook.v1.schema.json";

const segments = segmentsGolden as WebhookTranscriptSegments;
const joined = participantGolden as WebhookParticipantEvent;

/** The bot's segment a golden line was made from: the line without what the service adds. */
function botSegmentOf(line: WebhookTranscriptSegments["data"]["segments"][number]): BotSegment {
	const { start_time: _s, end_time: _e, created_at: _c, version: _v, updated_at: _u, ...rest } = line;
	return { ...rest, language: rest.language ?? undefined };
}

describe("transcript.segments", () => {
	it("reproduces the golden batch byte for byte, each line made from the bot's segment", async () => {
		const lines = segments.data.segments.map((line) => webhookSegment(botSegmentOf(line), line.created_at, line.version, line.updated_at));
		expect(lines).toEqual(segments.data.segments);
		const event = await transcriptSegmentsEvent(segments.data.meeting, segments.data.sequence, lines, new Date(segments.created_at));
		expect(event.body).toBe(JSON.stringify(segments));
		expect(event).toMatchObject({
			event_id: segments.event_id,
			event_type: "transcript.segments",
			meeting_id: 11367,
			order_key: "meeting:11367",
		});
	});

	it("names a batch by its meeting and sequence number only, so a retried batch keeps its id", async () => {
		const id = await liveEventId(11367, 7);
		expect(id).toBe(segments.event_id);
		expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
		const later = await transcriptSegmentsEvent(segments.data.meeting, 7, [], new Date());
		expect(later.event_id).toBe(id);
		expect(await liveEventId(11367, 8)).not.toBe(id);
		expect(await liveEventId(11368, 7)).not.toBe(id);
		expect(liveOrderKey(11367)).toBe("meeting:11367");
	});

	it("tells a resend from a correction: same words, speaker and times are the same line", async () => {
		const line = botSegmentOf(segments.data.segments[0]!);
		const digest = await segmentDigest(line);
		expect(await segmentDigest({ ...line, confidence: 0.5 })).toBe(digest);
		expect(await segmentDigest({ ...line, speaker: "Alice Smith" })).not.toBe(digest);
		expect(await segmentDigest({ ...line, text: "Let's start with the budget." })).not.toBe(digest);
		expect(await segmentDigest({ ...line, end: 304 })).not.toBe(digest);
	});
});

describe("participant.joined and participant.left", () => {
	it("reproduces the golden event byte for byte", async () => {
		const { participant, timestamp } = joined.data;
		const message = { type: "participant", seq: 1, event: "join", participant, timestamp } as const;
		const event = await participantEvent(joined.data.meeting, joined.data.sequence, message, new Date(joined.created_at));
		expect(event.body).toBe(JSON.stringify(joined));
		expect(event.order_key).toBe("meeting:11367");
	});

	it("carries a name as text in JSON, whatever it holds", async () => {
		const name = `</script><img src=x onerror=alert(1)>"\\\u0000\u202e`;
		const message = { type: "participant", seq: 1, event: "leave", participant: { id: name, name }, timestamp: "t" } as const;
		const event = await participantEvent(joined.data.meeting, 9, message);
		const parsed = JSON.parse(event.body) as WebhookParticipantEvent;
		expect(parsed.event_type).toBe("participant.left");
		expect(parsed.data.participant).toEqual({ id: name, name });
	});
});

describe("the live events' envelope", () => {
	it("parses as the declared WebhookEvent", () => {
		for (const golden of [segmentsGolden, participantGolden]) expect(WebhookEnvelope.parse(golden)).toEqual(golden);
	});

	it("keeps the webhook.v1 envelope: its keys and nothing else, the event type its own", () => {
		// The reference's contract lists only its event types; the envelope around ours is the same.
		const defs = {
			...webhookContract.$defs,
			EventType: { enum: [...webhookContract.$defs.EventType.enum, "transcript.segments", "participant.joined"] },
		};
		const validator = new Validator({ $ref: "#/$defs/Envelope", $defs: defs } as unknown as Schema, "2020-12");
		for (const golden of [segmentsGolden, participantGolden]) expect(validator.validate(golden).errors).toEqual([]);
	});
});
