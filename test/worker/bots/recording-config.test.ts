import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { spawnRequestFor } from "../meetings/bot-sim";
import { call, json, userWithKey } from "../support";

/** POST /bots with these fields, then the spawn a host gets for it and the options stored with the meeting. */
async function sent(fields: Record<string, unknown>) {
	const { headers } = await userWithKey();
	const shown = async (id: number) =>
		(await json<{ recording_plan: unknown }>(await call("GET", `/meetings/${id}`, { headers }))).recording_plan;
	const res = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: meetCode(), ...fields } });
	expect(res.status, await res.clone().text()).toBe(201);
	const meeting = await json<{ id: number }>(res);
	const spawn = await spawnRequestFor(meeting.id);
	const stored = await env.DB.prepare("SELECT bot_options FROM meetings WHERE id = ?").bind(meeting.id).first<string>("bot_options");
	return { meeting, spawn, options: JSON.parse(stored ?? "{}") as Record<string, unknown>, plan: await shown(meeting.id) };
}

async function refused(fields: Record<string, unknown>) {
	const { headers } = await userWithKey();
	const res = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: meetCode(), ...fields } });
	expect(res.status).toBe(422);
	return (await json<{ detail: { loc: (string | number)[]; msg: string }[] }>(res)).detail;
}

describe("what a bot records (recording_config, video)", () => {
	it("records 720p video with Opus audio by default, streamed to the meeting's parts URL", async () => {
		const { meeting, spawn } = await sent({ recording_enabled: true });
		expect(spawn.recording_enabled).toBe(true);
		expect(spawn.recording).toEqual({ video: true, width: 1280, height: 720, frame_rate: 15, audio_format: "opus" });
		expect(spawn.recording_parts_url).toBe(`https://gateway.test/internal/recordings/${meeting.id}/parts`);
		expect(spawn.recording_upload_url).toBe(`https://gateway.test/internal/recordings/${meeting.id}`);
	});

	it("shows the meeting's recording plan on its record, as the bot was told it, and null without recording", async () => {
		const { spawn, plan } = await sent({ recording_enabled: true, recording_config: { resolution: "1080p" } });
		expect(plan).toEqual(spawn.recording);
		expect((await sent({ recording_enabled: true, recording_config: { video: false } })).plan).toMatchObject({ video: false });
		expect((await sent({})).plan).toBeNull();
	});

	it("gives no plan and no parts URL to a bot sent without recording", async () => {
		for (const fields of [{}, { recording_enabled: false }, { recording_enabled: false, recording_config: { resolution: "1080p" } }]) {
			const { spawn } = await sent(fields);
			expect(spawn.recording_enabled).toBe(false);
			expect(spawn.recording).toBeUndefined();
			expect(spawn.recording_parts_url).toBeUndefined();
		}
	});

	it("takes the caller's resolution, audio format and audio-only choice, and stores them with the bot", async () => {
		const hd = await sent({ recording_enabled: true, recording_config: { resolution: "1080p" } });
		expect(hd.spawn.recording).toEqual({ video: true, width: 1920, height: 1080, frame_rate: 15, audio_format: "opus" });
		expect(hd.options.recording_config).toEqual({ resolution: "1080p" });
		const audioOnly = await sent({ recording_enabled: true, recording_config: { video: false, audio_format: "wav" } });
		expect(audioOnly.spawn.recording).toMatchObject({ video: false, audio_format: "wav" });
		expect(audioOnly.options).toMatchObject({ recording_enabled: true, recording_config: { video: false, audio_format: "wav" } });
	});

	it("reads the reference's video flag: true records audio and video, false audio only", async () => {
		const video = await sent({ video: true });
		expect(video.spawn.recording_enabled).toBe(true);
		expect(video.spawn.recording?.video).toBe(true);
		expect(video.options).toMatchObject({ recording_enabled: true, recording_config: { video: true } });
		expect(video.options).not.toHaveProperty("video");
		const audio = await sent({ recording_enabled: true, video: false });
		expect(audio.spawn.recording?.video).toBe(false);
		// video: false alone records nothing more than recording_enabled says.
		const none = await sent({ video: false });
		expect(none.spawn.recording_enabled).toBe(false);
		const both = await sent({ video: true, recording_config: { video: true, resolution: "1080p" } });
		expect(both.spawn.recording).toMatchObject({ video: true, width: 1920 });
	});

	it("refuses bad values with a 422 naming the field", async () => {
		const cases: [Record<string, unknown>, (string | number)[]][] = [
			[{ recording_config: { resolution: "4k" } }, ["body", "recording_config", "resolution"]],
			[{ recording_config: { audio_format: "mp3" } }, ["body", "recording_config", "audio_format"]],
			[{ recording_config: { video: "yes" } }, ["body", "recording_config", "video"]],
			[{ recording_config: "720p" }, ["body", "recording_config"]],
			[{ video: "true" }, ["body", "video"]],
			[{ video: true, recording_enabled: false }, ["body", "video"]],
			[{ video: false, recording_config: { video: true } }, ["body", "video"]],
		];
		for (const [fields, loc] of cases) {
			const detail = await refused(fields);
			expect(detail[0]?.loc, JSON.stringify(fields)).toEqual(loc);
		}
		const unknown = await refused({ recording_config: { fps: 60 } });
		expect(unknown[0]?.loc.slice(0, 2)).toEqual(["body", "recording_config"]);
		expect(unknown[0]?.msg).toMatch(/fps/);
	});
});
