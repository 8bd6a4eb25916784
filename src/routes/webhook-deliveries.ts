import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../errors";
import { attemptDelivery } from "../webhooks/deliver";
import { listDeliveries } from "../webhooks/delivery-log";
import { webhookTestEvent } from "../webhooks/test-event";
import { jsonResponse, routeModule } from "./openapi-app";

/** The webhook's delivery history (docs/webhooks.md#delivery-history) and its test event (docs/webhooks.md#test-event). */
export const webhookDeliveryRoutes = routeModule();

const OUTCOMES = ["delivered", "queued", "suppressed", "blocked", "failed"] as const;

const DeliveryRow = z
	.object({
		event_type: z.string(),
		event_id: z.string(),
		target_host: z.string(),
		outcome: z.enum(OUTCOMES),
		status_code: z.number().int().nullable(),
		attempt: z.number().int(),
		meeting_id: z.number().int().nullable(),
		created_at: z.string(),
	})
	.openapi("WebhookDelivery");

const DeliveryPage = z
	.object({
		deliveries: z.array(DeliveryRow),
		next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next (older) page; null on the last page" }),
	})
	.openapi("WebhookDeliveryPage");

webhookDeliveryRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/webhook/deliveries",
		request: {
			query: z.object({
				limit: z.coerce.number().int().min(1).max(500).default(100),
				cursor: z
					.string()
					.regex(/^\d{1,15}$/, "cursor must be the next_cursor of an earlier page")
					.optional()
					.openapi({ description: "The `next_cursor` of the page before: rows older than it" }),
			}),
		},
		responses: { 200: jsonResponse(DeliveryPage, "Newest first, a page at a time") },
	}),
	async (c) => {
		const { limit, cursor } = c.req.valid("query");
		// One row more than the page says whether another page follows.
		const rows = await listDeliveries(c.env, c.get("identity").userId, limit + 1, cursor === undefined ? undefined : Number(cursor));
		const page = rows.slice(0, limit);
		return c.json(
			{
				deliveries: page.map((r) => ({
					event_type: r.eventType,
					event_id: r.eventId,
					target_host: r.targetHost,
					outcome: r.outcome as (typeof OUTCOMES)[number],
					status_code: r.statusCode,
					attempt: r.attempt,
					meeting_id: r.meetingId,
					created_at: r.createdAt,
				})),
				next_cursor: rows.length > limit ? String(page.at(-1)?.id) : null,
			},
			200,
		);
	},
);

const TestResult = z
	.object({
		event_id: z.string(),
		outcome: z.enum(OUTCOMES).openapi({ description: "`delivered` (2xx), `blocked` (the outbound guard refused the address) or `failed`" }),
		status_code: z.number().int().nullable().openapi({ description: "The receiver's HTTP status; null when no answer came" }),
		duration_ms: z.number().int().nullable().openapi({ description: "From sending to the answer; null when nothing was sent" }),
		error: z.string().nullable().openapi({ description: "Why no answer came or nothing was sent, in words; null otherwise" }),
		target_host: z.string(),
	})
	.openapi("WebhookTestResult");

webhookDeliveryRoutes.openapi(
	createRoute({
		method: "post",
		path: "/user/webhook/test",
		responses: {
			200: jsonResponse(TestResult, "The test event was tried once; its result (it is also in the delivery history)"),
			409: jsonResponse(z.object({ detail: z.string() }), "No webhook URL is set"),
		},
	}),
	async (c) => {
		const me = c.get("identity");
		const event = webhookTestEvent(me.userId, c.get("clock").now());
		// The normal path, once: the account's URL and secret, the outbound guard, the signature, the history row.
		const report = await attemptDelivery(c.env, me.userId, event, { attempt: 1, willRetry: false, clock: c.get("clock") });
		if (report.outcome === "no_target") throw new ApiError(409, "No webhook URL is set: save one above, then send a test");
		return c.json(
			{
				event_id: event.event_id,
				outcome: report.outcome,
				status_code: report.status_code,
				duration_ms: report.duration_ms ?? null,
				error: report.error ?? null,
				target_host: report.target_host ?? "",
			},
			200,
		);
	},
);
