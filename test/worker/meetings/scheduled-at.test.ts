import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { call, json, userWithKey } from "../support";
import { createPlan, getMeeting, meetUrl } from "./helpers";

/**
 * `scheduled_at` is "string, ISO 8601" in the spec, and the reference's clients send times
 * without a zone (`2026-06-20T09:00:00`): those are read as UTC, everywhere a time is taken,
 * and answered normalized with `Z`.
 */
describe("scheduled_at without an offset", () => {
	it("plans a meeting at that time in UTC, answered with Z, as POST /meetings and GET read it", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { title: "Naive", scheduled_at: "2031-05-04T09:30:00", meeting_url: meetUrl(meetCode()) });
		expect(plan).toMatchObject({ status: "scheduled", data: { title: "Naive", scheduled_at: "2031-05-04T09:30:00.000Z" } });
		expect((await getMeeting(headers, plan.id)).data.scheduled_at).toBe("2031-05-04T09:30:00.000Z");

		// Without seconds, and with a fraction: the same rule.
		const minutes = await createPlan(headers, { scheduled_at: "2031-05-04T10:15" });
		expect(minutes.data.scheduled_at).toBe("2031-05-04T10:15:00.000Z");
		const fraction = await createPlan(headers, { scheduled_at: "2031-05-04T10:15:30.250" });
		expect(fraction.data.scheduled_at).toBe("2031-05-04T10:15:30.250Z");
		// Times with a zone keep meaning what they say.
		const offset = await createPlan(headers, { scheduled_at: "2031-05-04T11:30:00+02:00" });
		expect(offset.data.scheduled_at).toBe("2031-05-04T09:30:00.000Z");
	});

	it("moves a plan with PATCH /meetings/{id} to a time without an offset, read as UTC", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { title: "Later", scheduled_at: "2031-05-04T09:30:00Z" });
		const res = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { scheduled_at: "2031-06-01T14:00:00" } });
		expect(res.status).toBe(200);
		expect(await json<Meeting>(res)).toMatchObject({ status: "scheduled", data: { scheduled_at: "2031-06-01T14:00:00.000Z" } });
		// An idle plan becomes scheduled the same way.
		const idle = await createPlan(headers, { title: "No time yet" });
		const scheduled = await json<Meeting>(
			await call("PATCH", `/meetings/${idle.id}`, { headers, json: { scheduled_at: "2031-06-02T08:00" } }),
		);
		expect(scheduled).toMatchObject({ status: "scheduled", data: { scheduled_at: "2031-06-02T08:00:00.000Z" } });
	});

	it("filters GET /meetings by times without an offset, read as UTC", async () => {
		const { headers } = await userWithKey();
		const early = await createPlan(headers, { scheduled_at: "2031-05-04T09:00:00Z" });
		const late = await createPlan(headers, { scheduled_at: "2031-05-04T11:00:00Z" });
		const listed = async (query: string) => {
			const res = await call("GET", `/meetings?${query}`, { headers });
			expect(res.status, query).toBe(200);
			return (await json<{ meetings: Meeting[] }>(res)).meetings.map((m) => m.id);
		};
		expect(await listed("scheduled_after=2031-05-04T10:00:00")).toEqual([late.id]);
		expect(await listed("scheduled_before=2031-05-04T10:00")).toEqual([early.id]);
		expect(await listed("scheduled_after=2031-05-04T09:00:00&scheduled_before=2031-05-04T11:00:00")).toEqual([late.id, early.id]);
		expect(await listed("created_before=2000-01-01T00:00:00")).toEqual([]);
	});

	it("still refuses what is not a date-time with a 422 on the field, and stores nothing", async () => {
		const { headers } = await userWithKey();
		for (const scheduled_at of ["tomorrow", "2031-05-04", "2031-02-30T09:00:00", "2031-05-04 09:30:00", "2031-05-04T25:00:00", ""]) {
			const res = await call("POST", "/meetings", { headers, json: { title: "x", scheduled_at } });
			expect(res.status, scheduled_at).toBe(422);
			const body = await json<{ detail: { loc: string[] }[] }>(res);
			expect(
				body.detail.map((d) => d.loc.join(".")),
				scheduled_at,
			).toContain("body.scheduled_at");
		}
		expect((await json<{ meetings: Meeting[] }>(await call("GET", "/meetings", { headers }))).meetings).toEqual([]);
		const plan = await createPlan(headers, { scheduled_at: "2031-05-04T09:30:00Z" });
		expect((await call("PATCH", `/meetings/${plan.id}`, { headers, json: { scheduled_at: "next week" } })).status).toBe(422);
		expect((await getMeeting(headers, plan.id)).data.scheduled_at).toBe("2031-05-04T09:30:00.000Z");
		expect((await call("GET", "/meetings?scheduled_after=soon", { headers })).status).toBe(422);
	});
});
