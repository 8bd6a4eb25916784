import { createRoute, z } from "@hono/zod-openapi";
import { conflict, notFound } from "../errors";
import { MeetingIdParam } from "../meetings/meeting-queries";
import { findOwnedMeeting } from "../meetings/meeting-store";
import { MeetingSummary, summaryOf } from "../meetings/meeting-summary";
import { readableSummary } from "../meetings/meeting-summary-store";
import { meetingStream } from "../objects";
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

meetingSummaryRoutes.openapi(
	createRoute({
		method: "post",
		path: "/meetings/{meeting_id}/summary",
		request: { params: MeetingIdParam },
		responses: {
			202: jsonResponse(
				MeetingSummaryResponse,
				"Asked again: the summary is `pending` and is made as at completion. Only for a completed meeting of the caller's whose summary `failed`, was `no_model`, or was never made; a `pending` or `ready` summary is made once (409)",
			),
		},
	}),
	async (c) => {
		const meetingId = c.req.valid("param").meeting_id;
		const userId = c.get("identity").userId;
		// The owner's model is spent on it: a workspace member reads the summary but does not ask for one.
		const row = await findOwnedMeeting(c.env, userId, meetingId);
		if (!row) throw notFound("Meeting not found");
		if (row.status !== "completed") throw conflict(`A summary is made once the meeting has completed; it is ${row.status}`);
		const outcome = await meetingStream(c.env, meetingId).summarize(meetingId, userId);
		if (outcome.refused === "no_model") {
			throw conflict("No model is configured: set one under Settings → Model (PUT /user/models), then ask again");
		}
		if (outcome.refused || !outcome.summary) {
			const now = (await findOwnedMeeting(c.env, userId, meetingId))?.data;
			throw conflict(`This meeting's summary is ${summaryOf(now ?? {})?.status ?? "taken"}: a summary is made once`);
		}
		const summary = outcome.summary;
		return c.json({ meeting_id: meetingId, ...summary }, 202);
	},
);
