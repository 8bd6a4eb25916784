import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { FleetMetrics, type HostReport } from "../../../src/bot-channel/fleet";
import { fleetQueries } from "../../../src/bot-channel/fleet-store";
import type { Env } from "../../../src/env";
import { hostCredential } from "../meetings/bot-sim";
import { expectIndexedReads } from "../query-plan";
import { ADMIN, call, createUser, expectDocumented, json } from "../support";
import { callWith, METRICS_TOKEN, operatorGet } from "./operator";

const readMetrics = (overrides: Partial<Env> = {}) => operatorGet("/internal/fleet/metrics", overrides);

async function metrics(overrides: Partial<Env> = {}): Promise<FleetMetrics> {
	return expectDocumented(FleetMetrics, await readMetrics(overrides));
}

const report = (fields: Partial<HostReport> = {}): HostReport => ({
	host_id: "host-a",
	version: "1.0.0",
	slots: 20,
	running: 3,
	launching: 1,
	free: 16,
	draining: false,
	mem_available_mb: 12_000,
	load1: 0.5,
	...fields,
});

/** Sends a report as the host it names, with that host's own credential (minted for it unless given). */
const sendReport = async (body: HostReport, credential?: string) =>
	call("POST", "/internal/bot-hosts/reports", {
		headers: { Authorization: `Bearer ${credential ?? (await hostCredential(body.host_id))}` },
		json: body,
	});

const storedReports = async () =>
	(await env.DB.prepare("SELECT host_id, report FROM bot_hosts ORDER BY host_id").all<{ host_id: string; report: string }>()).results;

let linkCounter = 0;

// Storage is shared by every file a vitest worker runs (isolate: false): each test counts from an empty fleet.
beforeEach(async () => {
	await env.DB.batch([env.DB.prepare("DELETE FROM meetings"), env.DB.prepare("DELETE FROM bot_hosts")]);
});

/** A meeting row as the status machine leaves it; `scheduledAt` in ms from now. */
async function meeting(userId: number, status: string, plan: { inMs?: number; autoJoin?: boolean; link?: boolean } = {}) {
	linkCounter += 1;
	const now = new Date().toISOString();
	const scheduledAt = plan.inMs === undefined ? null : new Date(Date.now() + plan.inMs).toISOString();
	const linked = plan.link ?? true;
	await env.DB.prepare(
		`INSERT INTO meetings (user_id, platform, native_meeting_id, status, auto_join, scheduled_at, created_at, updated_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	)
		.bind(
			userId,
			linked ? "google_meet" : "unknown",
			linked ? `abc-defg-${String(linkCounter).padStart(3, "0")}` : null,
			status,
			plan.autoJoin === false ? 0 : 1,
			scheduledAt,
			now,
			now,
		)
		.run();
}

describe("POST /internal/bot-hosts/reports", () => {
	it("answers 401 without a host credential, with a wrong one or a revoked one, and stores nothing", async () => {
		const missing = await call("POST", "/internal/bot-hosts/reports", { json: report() });
		expect(missing.status).toBe(401);
		const wrong = await sendReport(report(), "bhc_not-a-credential");
		expect(wrong.status).toBe(401);
		expect(await json(wrong)).toEqual({ detail: "Invalid or missing bot host credential" });
		const revoked = await hostCredential("host-gone");
		expect((await call("DELETE", "/admin/bot-hosts/host-gone", { headers: ADMIN })).status).toBe(204);
		const late = await sendReport(report({ host_id: "host-gone" }), revoked);
		expect(late.status).toBe(401);
		expect(await late.text()).not.toContain(revoked);
		expect(await storedReports()).toEqual([]);
	});

	it("answers 403 to a report naming another host, and leaves that host's report as it was", async () => {
		expect((await sendReport(report({ host_id: "host-b", running: 7 }))).status).toBe(204);
		const before = await storedReports();
		const hostA = await hostCredential("host-a");
		const res = await sendReport(report({ host_id: "host-b", running: 0, draining: true }), hostA);
		expect(res.status).toBe(403);
		expect(await json(res)).toEqual({ detail: "This bot host credential is not host-b's" });
		expect(await storedReports()).toEqual(before);
	});

	it("takes a revoked host out of the metrics at once", async () => {
		expect((await sendReport(report({ host_id: "host-leaving" }))).status).toBe(204);
		expect((await metrics()).hosts.map((h) => h.host_id)).toEqual(["host-leaving"]);
		expect((await call("DELETE", "/admin/bot-hosts/host-leaving", { headers: ADMIN })).status).toBe(204);
		expect((await metrics()).hosts).toEqual([]);
	});

	it("answers 422 with field errors for a bad report, and stores nothing", async () => {
		const res = await call("POST", "/internal/bot-hosts/reports", {
			headers: { Authorization: `Bearer ${await hostCredential("host-a")}` },
			json: { ...report(), host_id: "bad id/with slash", slots: -1 },
		});
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: { loc: (string | number)[]; msg: string; type: string }[] }>(res);
		expect(detail.map((e) => e.loc)).toEqual(
			expect.arrayContaining([
				["body", "host_id"],
				["body", "slots"],
			]),
		);
		const notJson = await call("POST", "/internal/bot-hosts/reports", {
			headers: { Authorization: `Bearer ${await hostCredential("host-a")}`, "content-type": "application/json" },
			body: "{not json",
		});
		expect(notJson.status).toBe(422);
		expect(Array.isArray((await json<{ detail: unknown }>(notJson)).detail)).toBe(true);
		const stored = await env.DB.prepare("SELECT count(*) AS n FROM bot_hosts").first<{ n: number }>();
		expect(stored?.n).toBe(0);
	});

	it("stores a report (204) and a later one replaces the host's previous one", async () => {
		expect((await sendReport(report({ running: 3 }))).status).toBe(204);
		expect((await sendReport(report({ host_id: "host-b", running: 7, free: 13 }))).status).toBe(204);
		expect((await sendReport(report({ running: 5, free: 14, draining: true }))).status).toBe(204);
		const { hosts } = await metrics();
		expect(hosts).toHaveLength(2);
		const a = hosts.find((h) => h.host_id === "host-a");
		expect(a).toMatchObject({ running: 5, free: 14, draining: true });
		expect(Date.now() - Date.parse(a?.reported_at ?? "")).toBeLessThan(10_000);
		expect(hosts.find((h) => h.host_id === "host-b")).toMatchObject({ running: 7, free: 13 });
	});

	it("keeps no meeting ids: the metrics token reads counts per host, never which meetings a host runs", async () => {
		// A host of the version before sends them still; they are not stored.
		const res = await call("POST", "/internal/bot-hosts/reports", {
			headers: { Authorization: `Bearer ${await hostCredential("host-old")}` },
			json: { ...report({ host_id: "host-old" }), meeting_ids: [41, 42] },
		});
		expect(res.status).toBe(204);
		// A report stored before the change, meeting ids and all.
		await env.DB.prepare("INSERT INTO bot_hosts (host_id, report, reported_at) VALUES (?, ?, ?)")
			.bind("host-stored", JSON.stringify({ ...report({ host_id: "host-stored" }), meeting_ids: [43] }), new Date().toISOString())
			.run();
		const read = await metrics();
		expect(read.hosts.map((h) => h.host_id).sort()).toEqual(["host-old", "host-stored"]);
		expect(JSON.stringify(read)).not.toContain("meeting_ids");
		expect(JSON.stringify(await storedReports())).not.toContain("[41,42]");
	});
});

describe("GET /internal/fleet/metrics", () => {
	it("answers 401 without the token or with a wrong one, never echoing the token", async () => {
		const missing = await callWith({ FLEET_METRICS_TOKEN: METRICS_TOKEN }, "GET", "/internal/fleet/metrics");
		expect(missing.status).toBe(401);
		const wrong = await callWith({ FLEET_METRICS_TOKEN: METRICS_TOKEN }, "GET", "/internal/fleet/metrics", {
			headers: { Authorization: `Bearer ${METRICS_TOKEN}x` },
		});
		expect(wrong.status).toBe(401);
		expect(await wrong.text()).not.toContain(METRICS_TOKEN);
		// A host's credential is not the metrics token.
		const hostSecret = await callWith({ FLEET_METRICS_TOKEN: METRICS_TOKEN }, "GET", "/internal/fleet/metrics", {
			headers: { Authorization: `Bearer ${await hostCredential("host-a")}` },
		});
		expect(hostSecret.status).toBe(401);
	});

	it("answers 503 naming FLEET_METRICS_TOKEN when it is not configured", async () => {
		// Unset here whatever the test run's .dev.vars holds (npm start generates one).
		const res = await callWith({ FLEET_METRICS_TOKEN: undefined }, "GET", "/internal/fleet/metrics", {
			headers: { Authorization: "Bearer anything" },
		});
		expect(res.status).toBe(503);
		expect((await json<{ detail: string }>(res)).detail).toContain("FLEET_METRICS_TOKEN");
	});

	it("counts live and unclaimed meetings across users and statuses; ended and planned ones are not counted", async () => {
		const [one, two] = [await createUser(), await createUser()];
		for (const status of ["joining", "awaiting_admission", "needs_help", "active", "stopping"]) await meeting(one.id, status);
		await meeting(two.id, "active");
		await meeting(two.id, "requested");
		await meeting(one.id, "requested");
		await meeting(two.id, "requested");
		for (const status of ["completed", "failed", "idle"]) await meeting(one.id, status);
		const result = await metrics();
		expect(result).toMatchObject({ live: 6, unclaimed: 3, due_soon: 0, bots_needed: 9, due_window_s: 600 });
	});

	it("counts auto-join plans that fire within the due window, up to its edges", async () => {
		const user = await createUser();
		const windowMs = 600_000;
		const leadMs = 60_000;
		const margin = 20_000;
		// Fires within the window: its join starts a minute before the plan's start.
		await meeting(user.id, "scheduled", { inMs: windowMs + leadMs - margin });
		await meeting(user.id, "scheduled", { inMs: 5 * 60_000 });
		// Fires within a one-minute window too: 100 s ahead, its join is 40 s ahead.
		await meeting(user.id, "scheduled", { inMs: 100_000 });
		// Past its start but not yet stale (its auto-join is firing or retrying).
		await meeting(user.id, "scheduled", { inMs: -5 * 60_000 });
		// Beyond the window, stale, without auto-join, without a link: not due.
		await meeting(user.id, "scheduled", { inMs: windowMs + leadMs + margin });
		await meeting(user.id, "scheduled", { inMs: -(10 * 60_000 + margin) });
		await meeting(user.id, "scheduled", { inMs: 60_000, autoJoin: false });
		await meeting(user.id, "scheduled", { inMs: 60_000, link: false });
		await meeting(user.id, "active");
		expect(await metrics()).toMatchObject({ due_soon: 4, live: 1, unclaimed: 0, bots_needed: 5, due_window_s: 600 });
		// FLEET_DUE_WINDOW_S moves the far edge.
		expect(await metrics({ FLEET_DUE_WINDOW_S: "3600" })).toMatchObject({ due_soon: 5, due_window_s: 3600 });
		expect(await metrics({ FLEET_DUE_WINDOW_S: "60" })).toMatchObject({ due_soon: 2, due_window_s: 60 });
	});

	it("leaves out hosts whose last report is older than a minute", async () => {
		expect((await sendReport(report({ host_id: "fresh" }))).status).toBe(204);
		const old = new Date(Date.now() - 70_000).toISOString();
		await env.DB.prepare("INSERT INTO bot_hosts (host_id, report, reported_at) VALUES (?, ?, ?)")
			.bind("stale", JSON.stringify(report({ host_id: "stale" })), old)
			.run();
		const { hosts } = await metrics();
		expect(hosts.map((h) => h.host_id)).toEqual(["fresh"]);
	});

	it("reads each count through an index, never scanning the meetings or hosts table", async () => {
		await expectIndexedReads(fleetQueries, ["meetings", "bot_hosts"]);
	});
});
