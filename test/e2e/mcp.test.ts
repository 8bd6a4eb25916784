import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { meetCode } from "../shared/meetings";
import { sineWav } from "../worker/recordings/wav-fixture";
import { api, apiAt, gateway, newAccount } from "./client";
import { modelRequests, modelServer, script } from "./model-script";
import { playBot, spawnFor } from "./simulated-bot";

/** The official MCP client, connected to the gateway under wrangler dev with a key as MCP clients send it. */
async function connect(key: string) {
	const client = new Client({ name: "meetbot-e2e", version: "1.0.0" });
	const errors: Error[] = [];
	client.onerror = (err) => errors.push(err);
	const transport = new StreamableHTTPClientTransport(new URL(`${gateway()}/mcp`), {
		requestInit: { headers: { Authorization: `Bearer ${key}` } },
	});
	await client.connect(transport);
	return { client, errors };
}

/** A tool's answer: the JSON of its text, and whether it is a tool error. */
async function use<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}) {
	const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
	const first = result.content[0];
	if (first?.type !== "text") throw new Error(`${name}: no text in ${JSON.stringify(result)}`);
	return { isError: result.isError === true, body: JSON.parse(first.text) as T };
}

const now = () => new Date().toISOString();

describe("the MCP server through wrangler dev, with the official MCP client", () => {
	it("lists the tools and runs each one on a meeting whose bot is played over the real channel", async () => {
		const { key } = await newAccount();
		const models = await api("PUT", "/user/models", {
			key,
			json: { base_url: `${modelServer()}/v1`, model: "e2e-model", api_key: "e2e-model-key-0123" },
		});
		expect(models.status).toBe(200);
		const { client, errors } = await connect(key);

		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name).sort()).toEqual(
			[
				"agent_chat",
				"get_meeting",
				"get_meeting_summary",
				"get_transcript",
				"list_meetings",
				"list_recordings",
				"plan_meeting",
				"read_chat",
				"search_transcripts",
				"send_bot",
				"send_chat",
				"share_transcript",
				"speak",
				"stop_bot",
			].sort(),
		);

		const planCode = meetCode();
		const plan = await use<{ id: number; status: string }>(client, "plan_meeting", {
			title: "Roadmap review",
			meeting_url: `https://meet.google.com/${planCode}`,
		});
		expect(plan).toMatchObject({ isError: false, body: { status: "idle", native_meeting_id: planCode } });

		const code = meetCode();
		const link = { platform: "google_meet", native_meeting_id: code };
		const sent = await use<{ meeting: { id: number; status: string } }>(client, "send_bot", {
			...link,
			bot_name: "MCP Notetaker",
			recording_enabled: true,
		});
		expect(sent.isError).toBe(false);
		expect(sent.body.meeting.status).toBe("requested");
		const meetingId = sent.body.meeting.id;
		const spawn = await spawnFor(meetingId);
		expect(spawn).toMatchObject({ native_meeting_id: code, bot_name: "MCP Notetaker" });
		const bot = await playBot(spawn);
		for (const status of ["joining", "active"]) await bot.send({ type: "status", status, timestamp: now() });

		const listed = await use<{ meetings: { id: number; status: string }[] }>(client, "list_meetings");
		expect(listed.body.meetings.map((m) => [m.id, m.status])).toEqual([
			[meetingId, "active"],
			[plan.body.id, "idle"],
		]);
		const one = await use<{ meeting: { id: number; status: string; bot_name?: string } }>(client, "get_meeting", {
			meeting_id: meetingId,
		});
		expect(one.body.meeting).toMatchObject({ id: meetingId, status: "active" });

		await bot.send({
			type: "segment",
			segment: {
				segment_id: "m-1",
				speaker: "Priya",
				speaker_source: "caption",
				text: "The launch moves to Thursday.",
				start: 4,
				end: 6,
				language: "en",
				completed: true,
			},
		});
		const transcript = await use<{ segments: unknown[] }>(client, "get_transcript", link);
		expect(transcript.body.segments).toEqual([{ speaker: "Priya", text: "The launch moves to Thursday.", start: 4 }]);

		// Speaking and chatting reach the live bot as commands on its channel.
		const spoken = await use(client, "speak", { ...link, text: "Noted, Thursday it is." });
		expect(spoken).toEqual({ isError: false, body: { message: "Speak command sent", meeting_id: meetingId } });
		await bot.channel.waitFor("speak", (m) => m.type === "command" && (m.act as { action: string }).action === "speak");
		const chatted = await use(client, "send_chat", { ...link, text: "Agenda: launch date" });
		expect(chatted).toEqual({ isError: false, body: { message: "Chat message sent", meeting_id: meetingId } });
		const chatCommand = await bot.channel.waitFor(
			"chat",
			(m) => m.type === "command" && (m.act as { action: string }).action === "chat_send",
		);
		expect(chatCommand.act).toEqual({ action: "chat_send", text: "Agenda: launch date" });
		await bot.send({ type: "chat", message: { sender: "Priya", text: "Thanks!", timestamp: 1_700_000_000_000, is_from_bot: false } });
		const chat = await use<{ messages: unknown[] }>(client, "read_chat", link);
		expect(chat.body.messages).toEqual([{ sender: "Priya", text: "Thanks!", timestamp: 1_700_000_000_000, is_from_bot: false }]);

		const shared = await use<{ url: string }>(client, "share_transcript", link);
		expect(shared.body.url.startsWith(`${gateway()}/public/transcripts/`)).toBe(true);
		const publicText = await (await fetch(shared.body.url)).text();
		expect(publicText).toContain("[00:00:04] Priya: The launch moves to Thursday.");

		const marker = `e2e-mcp-${crypto.randomUUID()}`;
		await script(marker, [
			{ tool_calls: [{ id: "call_t", name: "get_transcript", arguments: link }] },
			{ text: ["Priya said ", "the launch moves to Thursday."] },
		]);
		const turn = await use<{ finished: boolean; reply: string; tool_calls: { tool: string; ok: boolean }[] }>(client, "agent_chat", {
			prompt: `What did Priya say? ${marker}`,
			session: "mcp-e2e",
		});
		expect(turn.body).toMatchObject({
			finished: true,
			reply: "Priya said the launch moves to Thursday.",
			tool_calls: [{ tool: "get_transcript", ok: true }],
		});
		expect(JSON.stringify((await modelRequests(marker))[1]?.body)).toContain("The launch moves to Thursday.");

		const stopped = await use(client, "stop_bot", link);
		expect(stopped).toEqual({ isError: false, body: { stopping: true, meeting_id: meetingId } });
		await bot.channel.waitFor("leave", (m) => m.type === "command" && (m.act as { action: string }).action === "leave");
		// The bot leaves as the bot host's would: its recording first, then the last status.
		const wav = sineWav(1);
		const upload = await fetch(spawn.recording_upload_url ?? "", {
			method: "PUT",
			headers: { authorization: `Bearer ${spawn.channel.token}`, "content-type": "audio/wav" },
			body: Buffer.from(wav),
		});
		expect(upload.status).toBe(201);
		await bot.send({ type: "status", status: "completed", completion_reason: "stopped", timestamp: now() });

		const recordings = await use<{ recordings: { meeting_id: number; media_files: { file_size_bytes: number }[] }[] }>(
			client,
			"list_recordings",
		);
		expect(recordings.body.recordings).toMatchObject([{ meeting_id: meetingId, media_files: [{ file_size_bytes: wav.length }] }]);
		const ended = await use<{ meeting: { status: string; completion_reason: string } }>(client, "get_meeting", { meeting_id: meetingId });
		expect(ended.body.meeting).toMatchObject({ status: "completed", completion_reason: "stopped" });

		// Once the bot is gone, a bot action is the REST 404, as a tool error.
		const late = await use(client, "speak", { ...link, text: "Anyone there?" });
		expect(late).toEqual({ isError: true, body: { status: 404, detail: `No active meeting found for google_meet/${code}` } });

		await client.close();
		expect(errors).toEqual([]);
	});

	it("refuses a wrong key with 401 before MCP, and gives a key without the route's scope the REST 403 as a tool error", async () => {
		const wrong = new Client({ name: "meetbot-e2e", version: "1.0.0" });
		const transport = new StreamableHTTPClientTransport(new URL(`${gateway()}/mcp`), {
			requestInit: { headers: { Authorization: "Bearer vxa_bot_this-key-does-not-exist-000000000000000" } },
		});
		await expect(wrong.connect(transport)).rejects.toMatchObject({
			code: 401,
			message: expect.stringContaining('{"detail":"Invalid API key"}'),
		});

		const { userId } = await newAccount();
		const minted = await apiAt(gateway(), "POST", `/admin/users/${userId}/tokens?scopes=tx`, { admin: true });
		expect(minted.status).toBe(201);
		const { client } = await connect(minted.body.token as string);
		const code = meetCode();
		const refused = await use(client, "send_bot", { platform: "google_meet", native_meeting_id: code });
		expect(refused).toEqual({
			isError: true,
			body: {
				status: 403,
				detail:
					'Token scope not authorized for this endpoint: this API key lacks the "bot" scope needed for the tool send_bot (POST /bots); it has: tx',
			},
		});
		// Nothing was sent: the transcript routes know no meeting there, and reading still works with tx.
		expect(await use(client, "get_transcript", { platform: "google_meet", native_meeting_id: code })).toEqual({
			isError: true,
			body: { status: 404, detail: "Meeting not found" },
		});
		expect((await use<{ meetings: unknown[] }>(client, "list_meetings")).body.meetings).toEqual([]);
		await client.close();

		const get = await fetch(`${gateway()}/mcp`, { headers: { Authorization: `Bearer ${minted.body.token}` } });
		expect(get.status).toBe(405);
		expect(get.headers.get("allow")).toBe("POST");
	});
});
