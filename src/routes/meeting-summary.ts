import { createRoute, z } from "@hono/zod-openapi";
import { notFound } from "../errors";
import { MeetingIdParam } from "../meetings/meeting-queries";
import { MeetingSummary } from "../meetings/meeting-summary";
import { readableSummary } from "../meetings/meeting-summary-store";
import { jsonResponse, routeModule } from "./openapi-app";

/** A completed meeting's summary, decisions and action items (docs/api.md#summaries). */
export const meetingSummaryRoutes = routeModule();

export const MeetingSummaryResponse = MeetingSummary.extend({ meeting_id: z.number().int() }).openapi("MeetingSummaryResponse");

meetingSummaryRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meetings/{meeting_id}/summary",
		request: { params: MeetingIdParam },
		responses: {
			200: jsonResponse(
				MeetingSummaryResponse,
				"The meeting's summary: `pending` while it is made, `ready`, `failed` (with `error`), or `no_model` when its owner had no model configured",
			),
		},
	}),
	async (c) => {
		const meetingId = c.req.valid("param").meeting_id;
		const found = await readableSummary(c.env, c.get("identity").userId, meetingId);
		if (!found.ok) throw notFound(found.detail);
		return c.json({ meeting_id: meetingId, ...found.summary }, 200);
	},
);
