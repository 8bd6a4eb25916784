/**
 * A stuck bot asks for help and a failed one leaves its diagnostics, across every part: a real
 * bot in a sandbox meeting, its screenshot uploaded to the Worker, the meeting's data over the
 * API and /ws, and the screenshot fetched through the signed link the API hands out.
 */
import { describe, expect, inject, it } from "vitest";
import { eventually } from "../shared/wait";
import { apiAt, botGateway, nativeId, newAccount, Socket, sandboxScenario, wsUrl } from "./client";

interface Shot {
	screenshot_url: string | null;
}
interface Help extends Shot {
	kind: string;
	reason: string;
	page_text: string;
	since: string;
}
interface Diagnostics extends Shot {
	steps: { at: string; step: string }[];
	page_state: string | null;
	page_text: string;
}
interface MeetingRecord {
	status: string;
	completion_reason: string | null;
	data: { help?: Help; help_history?: Help[]; diagnostics?: Diagnostics; failure_detail?: string };
}

const meetingOf = async (key: string, id: number) =>
	(await apiAt(botGateway(), "GET", `/meetings/${id}`, { key })).body as unknown as MeetingRecord;

async function sandboxAction(meetingId: string, action: string): Promise<void> {
	const base = inject("sandboxUrl");
	const res = await fetch(`${base}/meetings/${encodeURIComponent(meetingId)}/actions`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ action }),
	});
	if (!res.ok) throw new Error(`sandbox action ${action}: ${res.status} ${await res.text()}`);
}

/** The screenshot behind a signed link: served without the API key, as an image, never cached. */
async function screenshotBehind(link: string): Promise<{ type: string | null; bytes: Uint8Array; cache: string | null }> {
	const res = await fetch(new URL(link, botGateway()));
	expect(res.status).toBe(200);
	return { type: res.headers.get("content-type"), bytes: new Uint8Array(await res.arrayBuffer()), cache: res.headers.get("cache-control") };
}

const isJpeg = (bytes: Uint8Array) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;

describe("a bot that cannot get past a screen", () => {
	it("asks for help with a screenshot and the page's text, then goes on once the screen is gone", async () => {
		const { key } = await newAccount(botGateway());
		const id = nativeId("google_meet");
		await sandboxScenario(id, {
			interstitial: true,
			direct_join: true,
			participants: [{ name: "Alice Chen", lines: ["Thanks for joining."] }],
		});
		const sent = await apiAt(botGateway(), "POST", "/bots", {
			key,
			json: { platform: "google_meet", native_meeting_id: id, bot_name: "Helpful Bot" },
		});
		expect(sent.status).toBe(201);
		const meetingId = sent.body.id as number;
		const live = await Socket.open(wsUrl("/ws", botGateway()), { "X-API-Key": key });
		live.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: id }] });
		await live.waitFor("subscribed", (m) => m.type === "subscribed");

		const stuck = await eventually(
			"the meeting to need help",
			async () => {
				const m = await meetingOf(key, meetingId);
				return m.status === "needs_help" ? m : undefined;
			},
			60_000,
		);
		const help = stuck.data.help as Help;
		expect(help.kind).toBe("unknown_screen");
		expect(help.page_text).toContain("Before you join");
		expect(help.reason.length).toBeGreaterThan(0);
		expect(help.screenshot_url).toBeTruthy();
		const shot = await screenshotBehind(help.screenshot_url as string);
		expect(shot.type).toBe("image/jpeg");
		expect(isJpeg(shot.bytes)).toBe(true);
		expect(shot.cache).toContain("no-store");

		// /ws said so too, with the same help request.
		const helpFrame = await live.waitFor(
			"needs_help on /ws",
			(m) => m.type === "meeting.status" && (m.payload as { status: string }).status === "needs_help",
		);
		expect((helpFrame.payload as { data: { help?: Help } }).data.help?.kind).toBe("unknown_screen");

		await sandboxAction(id, "clear_interstitial");
		const back = await eventually(
			"the bot to get in once the screen is gone",
			async () => {
				const m = await meetingOf(key, meetingId);
				return m.status === "active" ? m : undefined;
			},
			60_000,
		);
		expect(back.data.help).toBeUndefined();
		expect(back.data.help_history?.[0]?.kind).toBe("unknown_screen");
		live.close();

		expect((await apiAt(botGateway(), "DELETE", `/bots/google_meet/${id}`, { key })).status).toBe(204);
	});

	it("leaves its last steps and a screenshot when its join fails", async () => {
		const { key } = await newAccount(botGateway());
		const id = nativeId("zoom");
		await sandboxScenario(id, { deny: true, deny_after_ms: 1000, participants: [{ name: "Host" }] });
		const sent = await apiAt(botGateway(), "POST", "/bots", {
			key,
			json: { platform: "zoom", native_meeting_id: id, bot_name: "Denied Bot" },
		});
		expect(sent.status).toBe(201);
		const meetingId = sent.body.id as number;
		const failed = await eventually(
			"the join to fail",
			async () => {
				const m = await meetingOf(key, meetingId);
				return m.status === "failed" ? m : undefined;
			},
			60_000,
		);
		expect(failed.completion_reason).toBe("awaiting_admission_rejected");
		const diagnostics = failed.data.diagnostics as Diagnostics;
		expect(diagnostics.steps.length).toBeGreaterThan(1);
		expect(diagnostics.steps.map((s) => s.step).join("\n")).toMatch(/join/i);
		expect(diagnostics.screenshot_url).toBeTruthy();
		const shot = await screenshotBehind(diagnostics.screenshot_url as string);
		expect(isJpeg(shot.bytes)).toBe(true);
	});
});
