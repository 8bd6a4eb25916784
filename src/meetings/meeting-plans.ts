import { z } from "@hono/zod-openapi";
import { isUniqueViolation } from "../db";
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError, conflict, invalidField } from "../errors";
import { meetingRoom } from "../objects";
import { hasJoinableLink } from "./auto-join-rule";
import { parseMeetingLink } from "./meeting-link";
import { isoTimestamp, utcIso } from "./meeting-queries";
import { isWorkspaceMember, meetingView, nowIso } from "./meeting-store";
import { announceInRoom, createMeeting } from "./status-writes";

/** Planning meetings ahead (POST and PATCH /meetings), shared by the REST routes and the MCP tools. */

/** The fields of a plan, as POST /meetings takes them and PATCH /meetings/{id} changes them. */
export const PlanningFields = {
	title: z.string().max(500).nullable().optional(),
	scheduled_at: isoTimestamp.nullable().optional(),
	meeting_url: z.string().max(2048).nullable().optional(),
	workspace_id: z.string().min(1).max(200).nullable().optional(),
	auto_join: z.boolean().nullable().optional(),
	notes: z.string().max(20_000).nullable().optional(),
};

/**
 * What POST /meetings accepts; the MCP plan_meeting tool takes the same fields. Unknown fields
 * are ignored, as the reference does (docs/api.md#unknown-fields-in-request-bodies).
 */
export const PlanMeetingRequest = z.object(PlanningFields);
export type PlanMeetingRequest = z.infer<typeof PlanMeetingRequest>;

/** Arms, re-arms or cancels the plan's auto-join in its room. */
export async function replan(env: Env, row: MeetingRow | undefined, cancel = false) {
	if (!row) return;
	await meetingRoom(env, row.id).plan({
		meetingId: row.id,
		userId: row.userId,
		scheduledAt: cancel || row.status !== "scheduled" ? null : row.scheduledAt,
		autoJoin: row.autoJoin,
		joinable: hasJoinableLink(row),
	});
}

/** The link columns of a pasted meeting URL: nothing for undefined, a link-less plan for null. */
export function linkFields(meetingUrl: string | null | undefined) {
	if (meetingUrl === undefined) return {};
	if (meetingUrl === null) return { platform: "unknown", nativeMeetingId: null, constructedMeetingUrl: null, passcode: null };
	const parsed = parseMeetingLink(meetingUrl);
	if (!parsed) throw invalidField(["body", "meeting_url"], "Unrecognized meeting link: expected a Google Meet, Zoom or Teams URL");
	return {
		platform: parsed.platform,
		nativeMeetingId: parsed.native_meeting_id,
		constructedMeetingUrl: parsed.constructed_meeting_url,
		passcode: parsed.passcode ?? null,
	};
}

/**
 * Binding a meeting to a workspace shows it to the workspace's members, on their shared links
 * and live feeds, so only a member may bind one.
 */
export async function requireMembership(env: Env, userId: number, workspaceId: string | null | undefined): Promise<void> {
	if (!workspaceId) return;
	if (!(await isWorkspaceMember(env, userId, workspaceId))) throw new ApiError(403, "Not a member of this workspace");
}

export const linkConflict = () => conflict("A non-terminal meeting already exists for this meeting link");

/**
 * Plans a meeting (POST /meetings): `scheduled` when it has a time, else `idle`, with its
 * auto-join armed in its room. 403 for a workspace the user is not in, 409 for a link that
 * already has an open meeting, 422 for a link that is not a meeting link.
 */
export async function planMeeting(env: Env, planner: { userId: number }, body: PlanMeetingRequest) {
	const { userId } = planner;
	await requireMembership(env, userId, body.workspace_id);
	const now = nowIso();
	const data: Record<string, unknown> = {};
	if (body.title) data.title = body.title;
	if (body.notes) data.notes = body.notes;
	const link = linkFields(body.meeting_url ?? null);
	let row: MeetingRow;
	try {
		row = await createMeeting(
			env,
			{
				userId,
				...link,
				platform: link.platform ?? "unknown",
				status: body.scheduled_at ? "scheduled" : "idle",
				scheduledAt: body.scheduled_at ? utcIso(body.scheduled_at) : null,
				workspaceId: body.workspace_id ?? null,
				autoJoin: body.auto_join ?? true,
				data,
				createdAt: now,
				updatedAt: now,
			},
			"user",
			announceInRoom(env),
		);
	} catch (err) {
		if (isUniqueViolation(err)) throw linkConflict();
		throw err;
	}
	await replan(env, row);
	return meetingView(row);
}
