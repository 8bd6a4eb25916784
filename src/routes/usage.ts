import { createRoute, z } from "@hono/zod-openapi";
import { isoNow } from "../clock";
import { invalidField, notFound } from "../errors";
import { findUser } from "../gateway/user-store";
import { type DayRange, meetingUsagePage, usageReport } from "../usage/account-usage";
import { dayOf, dayStart, monthStart } from "../usage/usage-figures";
import { readUsageCaps, writeUsageCaps } from "../usage/usage-store";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** Usage (docs/api.md#usage): what an account used, per day and per meeting, and its caps; the operator sets the caps. */
export const usageRoutes = routeModule();

/** The longest range one request reads: a year and a day, so any calendar year fits. */
export const MAX_USAGE_DAYS = 366;

const Day = z
	.string()
	.regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date, YYYY-MM-DD")
	.refine((day) => !Number.isNaN(dayStart(day)) && dayOf(dayStart(day)) === day, { message: "must be a real date, YYYY-MM-DD" });

const RangeQuery = z.object({
	from: Day.optional().openapi({ description: "First UTC day, included; default the first of this month" }),
	to: Day.optional().openapi({ description: "Last UTC day, included; default today" }),
});

/** The range asked for, this month so far when neither end is; 422 for one that ends before it starts or spans over a year. */
function rangeOf(query: { from?: string; to?: string }, now: Date): DayRange {
	const to = query.to ?? dayOf(now.getTime());
	const from = query.from ?? dayOf(Math.min(monthStart(now.getTime()), dayStart(to)));
	if (dayStart(from) > dayStart(to)) throw invalidField(["query", "to"], `to (${to}) is before from (${from})`);
	const days = (dayStart(to) - dayStart(from)) / 86_400_000 + 1;
	if (days > MAX_USAGE_DAYS)
		throw invalidField(["query", "to"], `The range is ${days} days; at most ${MAX_USAGE_DAYS} can be read at once`);
	return { from, to };
}

const Cap = z
	.object({
		limit: z.number(),
		used: z.number().openapi({ description: "What counts against the cap now (live bots up to now)" }),
		resets_at: z
			.string()
			.nullable()
			.openapi({ description: "When the count starts again (UTC); null for storage, freed only by deleting" }),
	})
	.openapi("UsageCap");

const Caps = z
	.object({
		bot_minutes_per_day: Cap.nullable(),
		bot_minutes_per_month: Cap.nullable(),
		storage_bytes: Cap.nullable(),
	})
	.openapi("UsageCaps");

const Figures = {
	meetings: z.number().int().openapi({ description: "Meetings whose bot ran in the period" }),
	bot_minutes: z.number().openapi({ description: "Minutes bots were in meetings: from admission to the end" }),
	waiting_minutes: z.number().openapi({ description: "Minutes bots spent joining and waiting to be let in" }),
	transcription_minutes: z.number().openapi({ description: "Minutes of audio sent to the transcription endpoint" }),
	storage_bytes_added: z.number().int().openapi({ description: "Bytes of recordings stored in the period and still kept" }),
};

export const UsageReport = z
	.object({
		from: z.string(),
		to: z.string(),
		generated_at: z.string(),
		totals: z.object(Figures).openapi("UsageTotals"),
		storage_bytes: z.number().int().openapi({ description: "Bytes of recordings the account stores now" }),
		days: z.array(z.object({ day: z.string(), ...Figures }).openapi("UsageDay")),
		caps: Caps,
	})
	.openapi("UsageReport");

const MeetingUsage = z
	.object({
		meeting_id: z.number().int(),
		platform: z.string(),
		native_meeting_id: z.string().nullable(),
		title: z.string().nullable(),
		status: z.string(),
		live: z.boolean(),
		joining_at: z.string().nullable(),
		start_time: z.string().nullable(),
		end_time: z.string().nullable(),
		bot_minutes: Figures.bot_minutes,
		waiting_minutes: Figures.waiting_minutes,
		transcription_minutes: Figures.transcription_minutes,
		storage_bytes: z.number().int().openapi({ description: "Bytes of the meeting's recordings stored now" }),
	})
	.openapi("MeetingUsage");

export const MeetingUsagePage = z
	.object({
		from: z.string(),
		to: z.string(),
		total: z.number().int(),
		limit: z.number().int(),
		offset: z.number().int(),
		meetings: z.array(MeetingUsage),
	})
	.openapi("MeetingUsagePage");

usageRoutes.openapi(
	createRoute({
		method: "get",
		path: "/usage",
		request: { query: RangeQuery },
		responses: { 200: jsonResponse(UsageReport, "The account's usage per UTC day and in all, and its caps as they stand") },
	}),
	async (c) => {
		const now = c.get("clock").now();
		const range = rangeOf(c.req.valid("query"), now);
		return c.json(await usageReport(c.env, c.get("identity").userId, range, now), 200);
	},
);

usageRoutes.openapi(
	createRoute({
		method: "get",
		path: "/usage/meetings",
		request: {
			query: RangeQuery.extend({
				limit: z.coerce.number().int().min(1).max(500).default(50),
				offset: z.coerce.number().int().min(0).default(0),
			}),
		},
		responses: { 200: jsonResponse(MeetingUsagePage, "The meetings whose bot ran in the range, newest first, with their usage in it") },
	}),
	async (c) => {
		const now = c.get("clock").now();
		const { limit, offset, ...query } = c.req.valid("query");
		const range = rangeOf(query, now);
		return c.json(await meetingUsagePage(c.env, c.get("identity").userId, range, now, { limit, offset }), 200);
	},
);

const CapsSetting = z
	.object({
		user_id: z.number().int(),
		bot_minutes_per_day: z.number().int().nullable(),
		bot_minutes_per_month: z.number().int().nullable(),
		storage_bytes: z.number().int().nullable(),
	})
	.openapi("UsageCapsSetting");

const UserIdParam = z.object({ user_id: z.coerce.number().int().positive() });

async function userOrNotFound(env: Parameters<typeof findUser>[0], userId: number) {
	const user = await findUser(env, userId);
	if (!user) throw notFound("User not found");
	return user;
}

usageRoutes.openapi(
	createRoute({
		method: "get",
		path: "/admin/users/{user_id}/usage-caps",
		request: { params: UserIdParam },
		responses: { 200: jsonResponse(CapsSetting, "The account's caps; null is no cap") },
	}),
	async (c) => {
		const user = await userOrNotFound(c.env, c.req.valid("param").user_id);
		return c.json({ user_id: user.id, ...(await readUsageCaps(c.env, user.id)) }, 200);
	},
);

const minutesCap = () => z.number().int().min(0).max(10_000_000).nullable().optional();

usageRoutes.openapi(
	createRoute({
		method: "patch",
		path: "/admin/users/{user_id}/usage-caps",
		request: {
			params: UserIdParam,
			body: jsonBody(
				z
					.strictObject({
						bot_minutes_per_day: minutesCap(),
						bot_minutes_per_month: minutesCap(),
						storage_bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
					})
					.refine((b) => Object.keys(b).length > 0, {
						message: "At least one of bot_minutes_per_day, bot_minutes_per_month or storage_bytes",
					}),
			),
		},
		responses: { 200: jsonResponse(CapsSetting, "The caps after the change; null is no cap") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		const user = await userOrNotFound(c.env, c.req.valid("param").user_id);
		const caps = { ...(await readUsageCaps(c.env, user.id)), ...body };
		await writeUsageCaps(c.env, user.id, caps, isoNow(c.get("clock")));
		return c.json({ user_id: user.id, ...caps }, 200);
	},
);
