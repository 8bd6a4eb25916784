import { env } from "cloudflare:test";
import type { WebhookEvent } from "../../../src/webhooks/deliver";
import { buildEnvelope, type MeetingWebhookEventType, type WebhookMeeting } from "../../../src/webhooks/envelope";
import { call, userWithKey } from "../support";

export const HOOK_SECRET = "whsec_0123456789abcdef";

/** A user whose webhook points at `url`, configured through the public settings route. */
export async function userWithWebhook(url: string | null, options: { secret?: string | null; events?: Record<string, boolean> } = {}) {
	const u = await userWithKey();
	if (url !== null) {
		const res = await call("PUT", "/user/webhook", {
			headers: u.headers,
			json: {
				webhook_url: url,
				...(options.secret !== null ? { webhook_secret: options.secret ?? HOOK_SECRET } : {}),
				...(options.events ? { webhook_events: options.events } : {}),
			},
		});
		if (res.status !== 200) throw new Error(`webhook settings: ${res.status} ${await res.text()}`);
	}
	return u;
}

let meetingCounter = 1000;

/** A serialized envelope for a meeting of `userId`, as the MeetingRoom would hand it over. */
export async function webhookEvent(userId: number, eventType: MeetingWebhookEventType = "meeting.completed"): Promise<WebhookEvent> {
	meetingCounter += 1;
	const now = new Date().toISOString();
	const meeting: WebhookMeeting = {
		id: meetingCounter,
		user_id: userId,
		platform: "google_meet",
		native_meeting_id: "abc-defg-hij",
		constructed_meeting_url: "https://meet.google.com/abc-defg-hij",
		status: "completed",
		completion_reason: "stopped",
		failure_stage: null,
		start_time: now,
		end_time: now,
		data: { title: "Weekly sync" },
		created_at: now,
		updated_at: now,
	};
	const envelope = await buildEnvelope({ event_type: eventType, meeting });
	return { event_id: envelope.event_id, event_type: eventType, meeting_id: meeting.id, body: JSON.stringify(envelope) };
}

export interface DeliveryRowView {
	event_type: string;
	event_id: string;
	target_host: string;
	outcome: string;
	status_code: number | null;
	attempt: number;
	meeting_id: number | null;
}

export async function deliveryRows(userId: number): Promise<DeliveryRowView[]> {
	const { results } = await env.DB.prepare(
		"SELECT event_type, event_id, target_host, outcome, status_code, attempt, meeting_id FROM webhook_deliveries WHERE user_id = ? ORDER BY id",
	)
		.bind(userId)
		.all<DeliveryRowView>();
	return results;
}

/** A D1 that answers reads but refuses writes (batch), or refuses everything. */
export function brokenD1(mode: "writes" | "all"): D1Database {
	const fail = () => {
		throw new Error("D1_ERROR: simulated outage");
	};
	return new Proxy(env.DB, {
		get(target, prop) {
			if (prop === "batch" || prop === "exec" || (mode === "all" && prop === "prepare")) return fail;
			const value = Reflect.get(target, prop);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}
