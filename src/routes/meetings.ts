import { createRoute, z } from "@hono/zod-openapi";
import { isUniqueViolation } from "../db";
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { conflict, notFound } from "../errors";
import { replaceMeetingData } from "../meetings/meeting-data";
import { eraseEndedMeeting } from "../meetings/meeting-erasure";
import { MeetingLinkParams } from "../meetings/meeting-link-params";
import { chatOf, participantsWithTalk } from "../meetings/meeting-people";
import {
	linkConflict,
	linkFields,
	PlanMeetingRequest,
	PlanningFields,
	planMeeting,
	replan,
	requireMembership,
} from "../meetings/meeting-plans";
import { listMeetings, MeetingIdParam, MeetingListQuery, readableMeetingView, utcIso } from "../meetings/meeting-queries";
import { findMeetingOnLink, findOwnedMeeting, findReadableMeeting, meetingView } from "../meetings/meeting-store";
import { initialState, isPlanned, isTerminal, type MeetingStatus } from "../meetings/status-machine";
import { announceInRoom, moveMeeting, removeMeeting } from "../meetings/status-writes";
import { meetingRoom } from "../objects";
import { withLinkedData } from "../screenshots/screenshots";
import {
	MeetingRecord as Meeting,
	MeetingChat,
	MeetingDeletionReceipt,
	MeetingList,
	MeetingParticipant,
	SpeakerTalkTime,
} from "./meeting-schemas";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** The meeting routes (docs/api.md#meetings): plans, the record, its metadata. */
export const meetingRoutes = routeModule();

const MeetingId = MeetingIdParam;

const lifecycleOwns = () => conflict("The bot lifecycle owns this meeting; it can no longer be edited as a plan");

meetingRoutes.openapi(
	createRoute({
		method: "post",
		path: "/meetings",
		request: { body: jsonBody(PlanMeetingRequest) },
		responses: { 201: jsonResponse(Meeting, "The planned meeting") },
	}),
	async (c) => c.json(await planMeeting(c.env, c.get("identity"), c.req.valid("json")), 201),
);

meetingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meetings",
		request: { query: MeetingListQuery },
		responses: { 200: jsonResponse(MeetingList, "Readable meetings, newest first") },
	}),
	async (c) => c.json({ meetings: await listMeetings(c.env, c.get("identity"), c.req.valid("query")) }, 200),
);

meetingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meetings/{meeting_id}",
		request: { params: MeetingId },
		responses: { 200: jsonResponse(Meeting, "One meeting") },
	}),
	async (c) => c.json(await readableMeetingView(c.env, c.get("identity"), c.req.valid("param").meeting_id), 200),
);

meetingRoutes.openapi(
	createRoute({
		method: "patch",
		path: "/meetings/{meeting_id}",
		request: { params: MeetingId, body: jsonBody(z.object(PlanningFields)) },
		responses: { 200: jsonResponse(Meeting, "The updated plan") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		const row = await findOwnedMeeting(c.env, c.get("identity").userId, c.req.valid("param").meeting_id);
		if (!row) throw notFound("Meeting not found");
		if (!isPlanned(row.status as MeetingStatus)) throw lifecycleOwns();
		await requireMembership(c.env, c.get("identity").userId, body.workspace_id);
		const data = { ...row.data };
		for (const key of ["title", "notes"] as const) {
			if (body[key] === null) delete data[key];
			else if (body[key] !== undefined) data[key] = body[key];
		}
		const scheduledAt = body.scheduled_at === undefined ? row.scheduledAt : body.scheduled_at && utcIso(body.scheduled_at);
		let updated: MeetingRow | null;
		try {
			const moved = await moveMeeting(
				c.env,
				{
					meetingId: row.id,
					current: initialState(row.status as MeetingStatus),
					ask: { to: scheduledAt ? "scheduled" : "idle", actor: "user" },
					values: {
						...linkFields(body.meeting_url),
						data,
						scheduledAt,
						...(body.workspace_id !== undefined ? { workspaceId: body.workspace_id } : {}),
						...(body.auto_join !== undefined ? { autoJoin: body.auto_join ?? true } : {}),
					},
				},
				announceInRoom(c.env),
			);
			updated = moved.ok ? moved.row : null;
		} catch (err) {
			if (isUniqueViolation(err)) throw linkConflict();
			throw err;
		}
		if (!updated) throw lifecycleOwns();
		await replan(c.env, updated);
		// Unbound or rebound: live feeds of people who read it through the old workspace stop.
		if (updated.workspaceId !== row.workspaceId) await meetingRoom(c.env, row.id).recheckWatchers(row.id);
		return c.json(meetingView(updated), 200);
	},
);

meetingRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/meetings/{meeting_id}",
		request: { params: MeetingId },
		responses: {
			200: jsonResponse(MeetingDeletionReceipt, "An ended meeting deleted on every store, with what went"),
			204: { description: "Plan removed" },
			503: jsonResponse(
				MeetingDeletionReceipt.extend({ detail: z.string() }),
				"A store refused: the meeting stays, with what went so far; DELETE again to finish",
			),
		},
	}),
	async (c) => {
		const row = await findOwnedMeeting(c.env, c.get("identity").userId, c.req.valid("param").meeting_id);
		if (!row) throw notFound("Meeting not found");
		if (isTerminal(row.status as MeetingStatus)) {
			const receipt = await eraseEndedMeeting(c.env, row);
			if (receipt.status === "deleted") return c.json(receipt, 200);
			const detail = `Some of the meeting's data could not be deleted (${receipt.failed.join(", ")}); the meeting stays: delete it again to finish`;
			return c.json({ detail, ...receipt }, 503, { "Retry-After": "5" });
		}
		if (!isPlanned(row.status as MeetingStatus)) throw lifecycleOwns();
		if (!(await removeMeeting(c.env, row, "user", announceInRoom(c.env)))) throw lifecycleOwns();
		await replan(c.env, row, true);
		return c.body(null, 204);
	},
);

meetingRoutes.openapi(
	createRoute({
		method: "patch",
		path: "/meetings/{platform}/{native_meeting_id}",
		request: {
			params: MeetingLinkParams,
			body: jsonBody(
				z.object({
					notes: z.string().max(20_000).nullable().optional(),
					title: z.string().max(500).nullable().optional(),
					data: z.record(z.string(), z.unknown()).optional(),
				}),
			),
		},
		responses: { 200: jsonResponse(Meeting, "The meeting with its metadata updated") },
	}),
	async (c) => {
		const { platform, native_meeting_id } = c.req.valid("param");
		const body = c.req.valid("json");
		const userId = c.get("identity").userId;
		// The record GET /transcripts shows (the newest started one), so notes read back there even
		// when a recurring link already has next week's plan; a link with only a plan gets the plan.
		const row =
			(await findMeetingOnLink(c.env, userId, platform, native_meeting_id, { ownedOnly: true, started: true })) ??
			(await findMeetingOnLink(c.env, userId, platform, native_meeting_id, { ownedOnly: true }));
		if (!row) throw notFound("Meeting not found");
		// Metadata only: status-bearing and calendar keys are not the caller's to write.
		const {
			auto_join_error: _e,
			calendar_sources: _s,
			scheduled_at: _t,
			failure_detail: _f,
			failure_cause: _fc,
			join_step: _js,
			help: _h,
			help_history: _hh,
			diagnostics: _d,
			completion_reason: _c,
			failure_stage: _g,
			summary: _sm,
			...free
		} = body.data ?? {};
		const data: Record<string, unknown> = { ...row.data, ...free };
		for (const key of ["title", "notes"] as const) {
			const value = body[key] !== undefined ? body[key] : (free[key] as string | null | undefined);
			if (value === null) delete data[key];
			else if (value !== undefined) data[key] = value;
		}
		const updated = await replaceMeetingData(c.env, row.id, data);
		return c.json(await withLinkedData(c.env, meetingView(updated ?? row)), 200);
	},
);

/** A meeting the caller may read, by id; 404 otherwise. */
async function readableMeeting(env: Env, userId: number, meetingId: number): Promise<MeetingRow> {
	const row = await findReadableMeeting(env, userId, meetingId);
	if (!row) throw notFound("Meeting not found");
	return row;
}

meetingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meetings/{meeting_id}/participants",
		request: { params: MeetingId },
		responses: {
			200: jsonResponse(
				z.object({
					meeting_id: z.number().int(),
					participants: z.array(MeetingParticipant),
					speakers: z.array(SpeakerTalkTime).openapi({ description: "Every speaker name of the transcript, most talk first" }),
				}),
				"Who joined and left (every stay) and who talked how long, live or ended",
			),
		},
	}),
	async (c) => {
		const row = await readableMeeting(c.env, c.get("identity").userId, c.req.valid("param").meeting_id);
		return c.json({ meeting_id: row.id, ...(await participantsWithTalk(c.env, row.id)) }, 200);
	},
);

meetingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meetings/{meeting_id}/chat",
		request: { params: MeetingId },
		responses: { 200: jsonResponse(MeetingChat, "The meeting chat as the bot saw it, oldest first, live or ended") },
	}),
	async (c) => {
		const row = await readableMeeting(c.env, c.get("identity").userId, c.req.valid("param").meeting_id);
		return c.json({ messages: await chatOf(c.env, row.id), meeting_id: row.id }, 200);
	},
);
