import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { spawnRequestFor } from "../meetings/bot-sim";
import { createPlan, getMeeting, liveMeeting, meetUrl, segment, sendBot } from "../meetings/helpers";
import { sineWav } from "../recordings/wav-fixture";
import { call, json, userWithKey } from "../support";
import { answerOf, bearer, expectInvalidArguments, mcpClient } from "./mcp-client";

/** The 403 of a tx key on a tool whose route takes `bot`: it names the tool, its route and the key's scopes. */
const scopeDetail = (tool: string, route: string) =>
	`Token scope not authorized for this endpoint: this API key lacks the "bot" scope needed for the tool ${tool} (${route}); it has: tx`;

/** A user with the official MCP client connected with their key (as a Bearer token). */
async function connected(scopes = "bot,tx") {
	const u = await userWithKey(scopes);
	const { client } = await mcpClient(bearer(u.key));
	const use = async <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) =>
		answerOf<T>(await client.callTool({ name, arguments: args }));
	return { ...u, client, use };
}

const link = (code: string) => ({ platform: "google_meet", native_meeting_id: code });

describe("MCP tools act through the REST routes' services", () => {
	it("send_bot sends a bot exactly as POST /bots does, and a second one on the link gets the REST 409", async () => {
		const { headers, use } = await connected();
		const code = meetCode();
		const sent = await use<{ meeting: Meeting }>("send_bot", { ...link(code), bot_name: "MCP Notetaker", language: "en" });
		expect(sent.isError).toBe(false);
		expect(sent.body.meeting).toMatchObject({ platform: "google_meet", native_meeting_id: code, status: "requested" });
		const spawn = await spawnRequestFor(sent.body.meeting.id);
		expect(spawn).toMatchObject({ native_meeting_id: code, bot_name: "MCP Notetaker" });
		expect((await getMeeting(headers, sent.body.meeting.id)).status).toBe("requested");

		const again = await use("send_bot", link(code));
		expect(again.isError).toBe(true);
		const rest = await call("POST", "/bots", { headers, json: link(code) });
		expect(again.body).toEqual({ status: rest.status, ...(await json(rest)) });
		expect(again.body.status).toBe(409);
	});

	it("send_bot takes a pasted meeting link, and a link of another platform is the REST 422 field error", async () => {
		const { use } = await connected();
		const code = meetCode();
		const sent = await use<{ meeting: Meeting }>("send_bot", { platform: "google_meet", meeting_url: meetUrl(code) });
		expect(sent.body.meeting.native_meeting_id).toBe(code);
		const wrong = await use("send_bot", { platform: "zoom", meeting_url: meetUrl(meetCode()) });
		expect(wrong).toEqual({
			isError: true,
			body: { status: 422, detail: [{ loc: ["body", "meeting_url"], msg: "Not a zoom meeting link", type: "value_error" }] },
		});
	});

	it("stop_bot stops the live bot (it is told to leave) and is a 404 tool error where none is live", async () => {
		const { headers, use } = await connected();
		const { meeting, bot, code } = await liveMeeting(headers);
		const stopped = await use("stop_bot", link(code));
		expect(stopped).toEqual({ isError: false, body: { stopping: true, meeting_id: meeting.id } });
		await eventually("leave", () => bot.commands().find((c) => c.type === "command" && c.act.action === "leave"));
		expect((await getMeeting(headers, meeting.id)).status).toBe("stopping");

		const none = await use("stop_bot", link(meetCode()));
		expect(none.isError).toBe(true);
		expect(none.body).toMatchObject({ status: 404, detail: expect.stringMatching(/^No active meeting found for google_meet\//) });
	});

	it("list_meetings and get_meeting read what GET /meetings reads, with its filters; another user's meeting is a 404", async () => {
		const { headers, use } = await connected();
		const plan = await createPlan(headers, { title: "Design review", meeting_url: meetUrl(meetCode()) });
		const sent = await sendBot(headers, meetCode());
		const all = await use<{ meetings: { id: number; title: string | null; status: string }[]; count: number }>("list_meetings");
		expect(all.body.meetings.map((m) => m.id)).toEqual([sent.id, plan.id]);
		expect(all.body.meetings[1]).toMatchObject({ id: plan.id, title: "Design review", status: "idle" });
		const idle = await use<{ meetings: { id: number }[] }>("list_meetings", { status: "idle" });
		expect(idle.body.meetings.map((m) => m.id)).toEqual([plan.id]);
		const unknown = await use("list_meetings", { status: "sleeping" });
		expect(unknown).toEqual({
			isError: true,
			body: { status: 422, detail: [{ loc: ["query", "status"], msg: "Unknown status: sleeping", type: "value_error" }] },
		});

		const one = await use<{ meeting: Meeting }>("get_meeting", { meeting_id: plan.id });
		expect(one.body.meeting).toEqual(await getMeeting(headers, plan.id));
		const stranger = await connected();
		expect(await stranger.use("get_meeting", { meeting_id: plan.id })).toEqual({
			isError: true,
			body: { status: 404, detail: "Meeting not found" },
		});
	});

	it("get_transcript reads the live meeting's segments; a link without a started meeting is the REST 404", async () => {
		const { headers, use } = await connected();
		const { bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ segment_id: "s-1", speaker: "Alice", text: "Ship it on Friday.", start: 1.5 }) });
		const transcript = await use<{ meeting: { native_meeting_id: string; status: string }; segments: unknown[] }>(
			"get_transcript",
			link(code),
		);
		expect(transcript.isError).toBe(false);
		expect(transcript.body.meeting).toMatchObject({ native_meeting_id: code, status: "active" });
		expect(transcript.body.segments).toEqual([{ speaker: "Alice", text: "Ship it on Friday.", start: 1.5 }]);

		expect(await use("get_transcript", link(meetCode()))).toEqual({ isError: true, body: { status: 404, detail: "Meeting not found" } });
	});

	it("search_transcripts finds what GET /transcripts/search finds, in the caller's meetings only; nothing searchable is the REST 422", async () => {
		const { headers, use } = await connected();
		const word = `osprey${Date.now().toString(36)}`;
		const { meeting, bot } = await liveMeeting(headers);
		await bot.send({
			type: "segment",
			segment: segment({ segment_id: "s-1", speaker: "Alice", text: `The ${word} budget is approved.`, start: 3 }),
		});
		const rest = await eventually("the segment indexed", async () => {
			const found = await json<{ total: number; hits: Record<string, unknown>[] }>(
				await call("GET", `/transcripts/search?q=${word}`, { headers }),
			);
			return found.total > 0 ? found : undefined;
		});
		const found = await use<{ total: number; hits: Record<string, unknown>[] }>("search_transcripts", { q: word });
		expect(found.isError).toBe(false);
		expect(found.body.total).toBe(1);
		expect(found.body.hits).toEqual(rest.hits.map(({ highlights: _, ...hit }) => hit));
		expect(found.body.hits[0]).toMatchObject({
			meeting_id: meeting.id,
			speaker: "Alice",
			start: 3,
			snippet: `The ${word} budget is approved.`,
		});

		const stranger = await connected();
		expect((await stranger.use<{ total: number }>("search_transcripts", { q: word })).body.total).toBe(0);
		expect(await use("search_transcripts", { q: '"*"' })).toMatchObject({
			isError: true,
			body: { status: 422, detail: [{ loc: ["query", "q"] }] },
		});
	});

	it("plan_meeting plans as POST /meetings does; a bad link is the REST 422 and an unknown field a tool error", async () => {
		const { headers, use, client } = await connected();
		const code = meetCode();
		const at = new Date(Date.now() + 3_600_000).toISOString();
		const planned = await use<Meeting>("plan_meeting", { title: "Weekly sync", meeting_url: meetUrl(code), scheduled_at: at });
		expect(planned.isError).toBe(false);
		expect(planned.body).toMatchObject({ native_meeting_id: code, status: "scheduled", auto_join: true, data: { title: "Weekly sync" } });
		expect(await getMeeting(headers, planned.body.id)).toMatchObject({ status: "scheduled", native_meeting_id: code });

		const clash = await use("plan_meeting", { meeting_url: meetUrl(code) });
		expect(clash).toEqual({ isError: true, body: { status: 409, detail: "A non-terminal meeting already exists for this meeting link" } });
		const badLink = await use("plan_meeting", { meeting_url: "https://example.com/not-a-meeting" });
		expect(badLink.body).toMatchObject({ status: 422, detail: [{ loc: ["body", "meeting_url"] }] });
		expectInvalidArguments(
			await client.callTool({ name: "plan_meeting", arguments: { title: "x", colour: "red" } }),
			"plan_meeting",
			"colour",
		);
		const list = await json<{ meetings: Meeting[] }>(await call("GET", "/meetings", { headers }));
		expect(list.meetings.map((m) => m.id)).toEqual([planned.body.id]);
	});

	it("speak and send_chat reach the live bot as the REST actions do, and read_chat reads what the bot saw", async () => {
		const { headers, use } = await connected();
		const { meeting, bot, code } = await liveMeeting(headers);
		const spoken = await use("speak", { ...link(code), text: "Hello from the assistant", voice: "nova" });
		expect(spoken).toEqual({ isError: false, body: { message: "Speak command sent", meeting_id: meeting.id } });
		const chatted = await use("send_chat", { ...link(code), text: "Notes are in the doc" });
		expect(chatted).toEqual({ isError: false, body: { message: "Chat message sent", meeting_id: meeting.id } });
		const acts = await eventually("two commands", () => {
			const commands = bot.commands();
			return commands.length >= 2 ? commands.map((c) => (c.type === "command" ? c.act : null)) : undefined;
		});
		expect(acts).toEqual([
			{ action: "speak", text: "Hello from the assistant", voice: "nova" },
			{ action: "chat_send", text: "Notes are in the doc" },
		]);

		await bot.send({ type: "chat", message: { sender: "Dana", text: "agenda?", timestamp: 1_700_000_000_123, is_from_bot: false } });
		const chat = await use("read_chat", link(code));
		expect(chat.body).toMatchObject({
			meeting_id: meeting.id,
			messages: [{ sender: "Dana", text: "agenda?", timestamp: 1_700_000_000_123, is_from_bot: false }],
			truncated: false,
		});

		// The interactive routes' own checks: one of text/audio is needed, and nothing is sent.
		const empty = await use("speak", { ...link(code), text: "" });
		expect(empty).toEqual({ isError: true, body: { status: 422, detail: "Must provide one of: text, audio_url, or audio_base64" } });
		const nowhere = await use("send_chat", { ...link(meetCode()), text: "hello?" });
		expect(nowhere.body).toMatchObject({ status: 404 });
		expect(bot.commands()).toHaveLength(2);
	});

	it("list_recordings lists the user's recordings with their media files, as GET /recordings does", async () => {
		const { headers, use, client } = await connected();
		const meeting = await sendBot(headers, meetCode(), { recording_enabled: true });
		const spawn = await spawnRequestFor(meeting.id);
		const wav = sineWav(1);
		const upload = await SELF.fetch((spawn.recording_upload_url ?? "").replace(/^https?:\/\/[^/]+/, "https://gateway.test"), {
			method: "PUT",
			headers: { authorization: `Bearer ${spawn.channel.token}`, "content-type": "audio/wav", "content-length": String(wav.length) },
			body: wav,
		});
		expect(upload.status).toBe(201);
		const { recording_id } = await json<{ recording_id: number }>(upload);

		const listed = await use<{ recordings: { id: number; meeting_id: number; media_files: { file_size_bytes: number }[] }[] }>(
			"list_recordings",
		);
		expect(listed.body).toEqual(await json(await call("GET", "/recordings", { headers })));
		expect(listed.body.recordings).toHaveLength(1);
		expect(listed.body.recordings[0]).toMatchObject({
			id: recording_id,
			meeting_id: meeting.id,
			media_files: [{ file_size_bytes: wav.length }],
		});
		const other = await use<{ recordings: unknown[] }>("list_recordings", { meeting_id: meeting.id + 1000 });
		expect(other.body.recordings).toEqual([]);
		expectInvalidArguments(await client.callTool({ name: "list_recordings", arguments: { limit: 501 } }), "list_recordings", "limit");
	});

	it("share_transcript makes a public link that serves the transcript, under the gateway's public address", async () => {
		const { headers, use, client } = await connected();
		const { bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ segment_id: "s-1", speaker: "Priya", text: "Budget approved.", start: 2 }) });
		const shared = await use<{ url: string; expires_in_seconds: number; share_id: string }>("share_transcript", {
			...link(code),
			ttl_seconds: 120,
		});
		expect(shared.isError).toBe(false);
		expect(shared.body.expires_in_seconds).toBe(120);
		expect(shared.body.url).toBe(`${env.PUBLIC_BASE_URL}/public/transcripts/${shared.body.share_id}.txt`);
		const text = await (await SELF.fetch(shared.body.url)).text();
		expect(text).toContain("[00:00:02] Priya: Budget approved.");

		expect(await use("share_transcript", link(meetCode()))).toEqual({ isError: true, body: { status: 404, detail: "Meeting not found" } });
		expectInvalidArguments(
			await client.callTool({ name: "share_transcript", arguments: { ...link(code), ttl_seconds: 8 * 86_400 } }),
			"share_transcript",
			"ttl_seconds",
		);
	});
});

describe("MCP tools take the scopes of their REST routes", () => {
	it("a tx key reads meetings and transcripts but gets the REST 403 detail for bot actions, which change nothing", async () => {
		const owner = await userWithKey("bot,tx");
		const { meeting, bot, code } = await liveMeeting(owner.headers);
		const { use, user } = await connected("tx");
		// A tx-only key of another user: reads stay empty, writes are refused before anything runs.
		expect((await use<{ meetings: unknown[] }>("list_meetings")).body.meetings).toEqual([]);
		const botRoute = "/bots/:platform/:native_meeting_id";
		for (const [name, args, route] of [
			["send_bot", link(meetCode()), "POST /bots"],
			["stop_bot", link(code), `DELETE ${botRoute}`],
			["speak", { ...link(code), text: "hi" }, `POST ${botRoute}/speak`],
			["send_chat", { ...link(code), text: "hi" }, `POST ${botRoute}/chat`],
			["read_chat", link(code), `GET ${botRoute}/chat`],
		] as const) {
			expect(await use(name, args), name).toEqual({ isError: true, body: { status: 403, detail: scopeDetail(name, route) } });
		}
		expect(bot.commands()).toEqual([]);
		expect((await getMeeting(owner.headers, meeting.id)).status).toBe("active");
		const mine = await env.DB.prepare("SELECT COUNT(*) AS n FROM meetings WHERE user_id = ?").bind(user.id).first<number>("n");
		expect(mine).toBe(0);
	});

	it("the same tx key may use the read tools of its own meetings", async () => {
		const u = await userWithKey("bot,tx");
		const txKey = await (async () => {
			const res = await call("POST", `/admin/users/${u.user.id}/tokens?scopes=tx`, {
				headers: { "X-Admin-API-Key": env.ADMIN_API_TOKEN ?? "" },
			});
			return (await json<{ token: string }>(res)).token;
		})();
		const { bot, code, meeting } = await liveMeeting(u.headers);
		await bot.send({ type: "segment", segment: segment({ text: "Read me." }) });
		const { client } = await mcpClient(bearer(txKey));
		const got = answerOf<{ meeting: Meeting }>(await client.callTool({ name: "get_meeting", arguments: { meeting_id: meeting.id } }));
		expect(got.body.meeting.id).toBe(meeting.id);
		const transcript = answerOf<{ segments: { text: string }[] }>(await client.callTool({ name: "get_transcript", arguments: link(code) }));
		expect(transcript.body.segments.map((s) => s.text)).toEqual(["Read me."]);
		const shared = answerOf(await client.callTool({ name: "share_transcript", arguments: link(code) }));
		expect(shared.isError).toBe(false);
		// Planning is the meeting-record plane, which `tx` covers as in the reference (docs/api.md#key-scopes).
		const planned = answerOf<{ id: number; status: string }>(
			await client.callTool({ name: "plan_meeting", arguments: { title: "tx plan" } }),
		);
		expect(planned).toMatchObject({ isError: false, body: { status: "idle" } });
	});
});
