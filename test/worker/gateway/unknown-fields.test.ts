import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { newFeed } from "../calendars/feeds";
import { createPlan, getMeeting, meetUrl } from "../meetings/helpers";
import { ADMIN, call, json, userWithKey } from "../support";

/**
 * Unknown fields in request bodies follow the reference route by route (docs/api.md): ignored
 * where its bodies are open (meetings, settings, the singular calendar route), refused with a
 * 422 field error where its bodies are closed (the plural calendar routes, admin).
 */

type FieldErrors = { detail: { loc: (string | number)[]; type: string }[] };

describe("unknown fields are ignored where the reference ignores them", () => {
	it("POST /meetings plans from the known fields only", async () => {
		const { user, headers } = await userWithKey();
		const code = meetCode();
		const res = await call("POST", "/meetings", {
			headers,
			json: { title: "Sync", meeting_url: meetUrl(code), status: "active", platform: "zoom", bot_name: "Nope", user_id: user.id + 1 },
		});
		expect(res.status).toBe(201);
		const plan = await json<Meeting>(res);
		expect(plan).toMatchObject({ status: "idle", platform: "google_meet", native_meeting_id: code, data: { title: "Sync" } });
		expect(plan.data).not.toHaveProperty("bot_name");
		expect(plan.user_id).toBe(user.id);
	});

	it("PATCH /meetings/{id} and PATCH /meetings/{platform}/{native_meeting_id} change only the known fields", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const plan = await createPlan(headers, { title: "Before", meeting_url: meetUrl(code) });
		const byId = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { title: "After", status: "completed", id: 1 } });
		expect(byId.status).toBe(200);
		expect(await json<Meeting>(byId)).toMatchObject({ id: plan.id, status: "idle", data: { title: "After" } });

		const byLink = await call("PATCH", `/meetings/google_meet/${code}`, { headers, json: { notes: "agenda", status: "failed" } });
		expect(byLink.status).toBe(200);
		expect(await getMeeting(headers, plan.id)).toMatchObject({
			status: "idle",
			notes: "agenda",
			data: { title: "After", notes: "agenda" },
		});
	});

	it("the settings writes ignore what they do not know and apply the rest", async () => {
		const { headers } = await userWithKey();
		const models = await call("PUT", "/user/models", { headers, json: { model: "m1", temperature: 0.2 } });
		expect(models.status).toBe(200);
		expect(await json(models)).toEqual({ mode: null, model: "m1", meeting_model: null, base_url: null, api_key_set: false, api_key: null });
		const transcription = await call("PUT", "/user/transcription", { headers, json: { url: "https://stt.example.com", language: "en" } });
		expect(transcription.status).toBe(200);
		const saved = await json<Record<string, unknown>>(transcription);
		expect(saved).toMatchObject({ url: "https://stt.example.com", token_set: false, token: null });
		expect(Object.keys(saved)).toEqual(["engine", "url", "token_set", "token", "vocabulary", "usage"]);
		const webhook = await call("PUT", "/user/webhook", { headers, json: { webhook_url: "https://hooks.example.com", retries: 3 } });
		expect(webhook.status).toBe(200);
		expect(await json(webhook)).toMatchObject({ webhook_url: "https://hooks.example.com" });
	});

	it("PUT /user/calendar, the singular route, ignores them too", async () => {
		const { headers } = await userWithKey();
		const res = await call("PUT", "/user/calendar", { headers, json: { ics_url: newFeed().url, auto_join: false, timezone: "UTC" } });
		expect(res.status).toBe(200);
		expect(await json(res)).toMatchObject({ ics_url_set: true, auto_join: false });
	});
});

describe("unknown fields are refused where the reference refuses them", () => {
	it("POST and PATCH /user/calendars answer 422 naming no field of theirs, and store nothing", async () => {
		const { headers } = await userWithKey();
		const post = await call("POST", "/user/calendars", { headers, json: { name: "Work", ics_url: newFeed().url, color: "red" } });
		expect(post.status).toBe(422);
		expect((await json<FieldErrors>(post)).detail[0]?.type).toBe("unrecognized_keys");
		expect(await json(await call("GET", "/user/calendars", { headers }))).toEqual({ calendars: [] });

		const made = await json<{ id: string }>(
			await call("POST", "/user/calendars", { headers, json: { name: "Work", ics_url: newFeed().url } }),
		);
		const patch = await call("PATCH", `/user/calendars/${made.id}`, { headers, json: { name: "Home", color: "red" } });
		expect(patch.status).toBe(422);
		expect((await json<{ calendars: { name: string }[] }>(await call("GET", "/user/calendars", { headers }))).calendars[0]?.name).toBe(
			"Work",
		);
	});

	it("PATCH /admin/users/{id} answers 422 for a field it does not know", async () => {
		const { user } = await userWithKey();
		const res = await call("PATCH", `/admin/users/${user.id}`, { headers: ADMIN, json: { max_concurrent_bots: 2, plan: "pro" } });
		expect(res.status).toBe(422);
	});
});
