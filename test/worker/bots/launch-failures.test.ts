/**
 * A launch that fails part-way leaves nothing stuck: no meeting left `requested` without a
 * room, no slot held by nothing, and `DELETE /bots` ends a live meeting no room holds.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_STORAGE } from "../../../durable-objects/account/storage";
import { meetCode } from "../../shared/meetings";
import { createPlan, getMeeting, meetUrl, sendBot, unheldRequestedMeeting } from "../meetings/helpers";
import { accountOf, call, json, userWithKey } from "../support";

const slotsOf = (userId: number) =>
	runInDurableObject(
		accountOf(userId),
		async (_a, state) => (await state.storage.get<Record<string, unknown>>(ACCOUNT_STORAGE.keys.botSlots)) ?? {},
	);

const setSlots = (userId: number, slots: Record<string, unknown>) =>
	runInDurableObject(accountOf(userId), (_a, state) => state.storage.put(ACCOUNT_STORAGE.keys.botSlots, slots));

/** The account's next slot binding fails, as a failed call to the account object would. */
const failNextSlotBinding = (userId: number) =>
	runInDurableObject(accountOf(userId), (account) => {
		const slots = (account as unknown as { slots: { bind: (link: string, meetingId: number) => Promise<void> } }).slots;
		const bind = slots.bind;
		slots.bind = () => {
			slots.bind = bind;
			return Promise.reject(new Error("injected: slot not bound"));
		};
	});

const runningBots = async (headers: Record<string, string>) =>
	(await json<{ running_bots: { meeting_id: number }[] }>(await call("GET", "/bots/status", { headers }))).running_bots;

describe("a launch that fails", () => {
	it("leaves the planned record as it was and the slot free when a stored secret cannot be opened", async () => {
		const { headers, user } = await userWithKey("bot,tx", { max_concurrent_bots: 1 });
		const code = meetCode();
		const plan = await createPlan(headers, { title: "Retro", meeting_url: meetUrl(code) });
		const put = await call("PUT", "/user/transcription", { headers, json: { url: "https://stt.example/v1", token: "stt-token-1234567" } });
		expect(put.status).toBe(200);
		// As after a SECRETS_KEY rotation: the sealed token no longer opens.
		await env.DB.prepare("UPDATE account_settings SET transcription_token_sealed = ? WHERE user_id = ?")
			.bind(`v1.${btoa("0".repeat(12))}.${btoa("0".repeat(32))}`, user.id)
			.run();

		const failed = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code } });
		expect(failed.status).toBeGreaterThanOrEqual(500);
		expect(await getMeeting(headers, plan.id)).toMatchObject({ status: "idle", data: { title: "Retro" } });
		expect(await runningBots(headers)).toEqual([]);
		expect(await slotsOf(user.id)).toEqual({});

		// Once the secret is set again, the same link starts at once (cap 1: the slot came back).
		await call("PUT", "/user/transcription", { headers, json: { token: "stt-token-7654321" } });
		const started = await sendBot(headers, code);
		expect(started).toMatchObject({ id: plan.id, status: "requested" });
	});

	it("undoes the claim when a step after it fails: a plan goes back to its plan, a new record goes", async () => {
		const { headers, user } = await userWithKey("bot,tx", { max_concurrent_bots: 1 });
		const planned = meetCode();
		const bare = meetCode();
		const plan = await createPlan(headers, { title: "Standup", meeting_url: meetUrl(planned) });
		for (const code of [planned, bare]) {
			await failNextSlotBinding(user.id);
			const res = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code, bot_name: "Other" } });
			expect(res.status).toBeGreaterThanOrEqual(500);
		}
		const after = await getMeeting(headers, plan.id);
		expect(after).toMatchObject({ status: "idle", data: { title: "Standup" } });
		const listed = await json<{ meetings: { native_meeting_id: string }[] }>(await call("GET", "/meetings", { headers }));
		expect(listed.meetings.map((m) => m.native_meeting_id)).toEqual([planned]);
		expect(await slotsOf(user.id)).toEqual({});
		expect(await sendBot(headers, bare)).toMatchObject({ status: "requested" });
	});

	it("drops a slot a launch claimed but never bound, once two minutes have passed", async () => {
		const { headers, user } = await userWithKey("bot,tx", { max_concurrent_bots: 2 });
		const stale = meetCode();
		const fresh = meetCode();
		await setSlots(user.id, {
			[`google_meet:${stale}`]: { claimedAt: Date.now() - 3 * 60_000 },
			[`google_meet:${fresh}`]: { claimedAt: Date.now() },
		});
		expect((await sendBot(headers, stale)).status).toBe("requested");
		// A claim that young may still be a launch in progress: its link stays taken.
		const busy = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: fresh } });
		expect(busy.status).toBe(409);
		expect(Object.keys(await slotsOf(user.id)).sort()).toEqual([`google_meet:${fresh}`, `google_meet:${stale}`].sort());
	});
});

describe("DELETE /bots for a live meeting no room holds", () => {
	it("ends it as a stop (completed, stopped), releases its slot, and frees the link", async () => {
		const { headers, user } = await userWithKey("bot,tx", { max_concurrent_bots: 1 });
		const code = meetCode();
		const id = await unheldRequestedMeeting(user.id, code);
		await setSlots(user.id, { [`google_meet:${code}`]: id });

		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		const ended = await getMeeting(headers, id);
		expect(ended).toMatchObject({ status: "completed", completion_reason: "stopped", failure_stage: null });
		expect(ended.end_time).not.toBeNull();
		expect(await slotsOf(user.id)).toEqual({});
		const again = await sendBot(headers, code);
		expect(again.id).not.toBe(id);
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
	});
});
