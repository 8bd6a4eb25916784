/**
 * The reference's gateway-only Python client (`clients/slim`, vexa_slim) against this gateway:
 * the exact requests its six commands send, in the order its `run` scenario sends them
 * (models, send-bot, process on, watch, process off, stop-bot), read as it reads them. It
 * calls `raise_for_status()` on each and reads the meeting stream with its own SSE framing:
 * `data:` lines joined until a blank line, `id:` ignored. Its `watch` returns when the stream
 * ends, so the stream has to end after `meeting-end` for the final beat to be seen in time.
 */
import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { meetUrl } from "../meetings/helpers";
import { call, json } from "../support";
import { copilotOwner, said } from "./copilot-helpers";
import { script, sent } from "./helpers";

type SlimEvent = { type?: string; [field: string]: unknown };

/**
 * The slim client's `read_sse_events` over `aiter_lines()`: a frame is its `data:` lines (each
 * stripped, joined) up to a blank line; `id:` and `event:` lines are ignored.
 */
function slimWatch(response: Response) {
	const events: SlimEvent[] = [];
	if (!response.body) throw new Error("no body");
	const reader = response.body.getReader();
	const decoder = new TextDecoder();
	const done = (async () => {
		let buffer = "";
		let data: string[] = [];
		const line = (text: string) => {
			if (text.startsWith("data:")) data.push(text.slice(5).trim());
			else if (text === "" && data.length > 0) {
				events.push(JSON.parse(data.join("")) as SlimEvent);
				data = [];
			}
		};
		try {
			for (;;) {
				const { done: ended, value } = await reader.read();
				if (ended) break;
				buffer += decoder.decode(value, { stream: true });
				const lines = buffer.split(/\r\n|\r|\n/);
				buffer = lines.pop() ?? "";
				for (const text of lines) line(text);
			}
			if (buffer) line(buffer);
			return events;
		} finally {
			await reader.cancel().catch(() => undefined);
		}
	})();
	return { events, done, cancel: () => reader.cancel().catch(() => undefined) };
}

const acmeCard = { name: "add_card", arguments: { kind: "company", title: "Acme", body: "Alice works there", actionable: false } };
const deckCard = { name: "add_card", arguments: { kind: "action_item", title: "Send the deck", body: "Bob, by Friday", actionable: true } };

describe("the reference's slim client, request by request", () => {
	it("models, send-bot, process on (no start first), watch, process off, stop-bot: the stream ends with the final beat, then meeting-end, then closes", async () => {
		const m = `slim-${crypto.randomUUID().slice(0, 8)}`;
		await script(m, [
			{ text: ["Alice introduced ", "Acme."], tool_calls: [acmeCard] },
			{ text: ["## Summary\n", "Acme met Bob; ", "the deck goes out Friday."], tool_calls: [deckCard], delay_ms: 100 },
		]);
		const owner = await copilotOwner();
		// Slim's headers: the key and a JSON content type on every request.
		const headers = { ...owner.headers, "Content-Type": "application/json" };
		const code = meetCode();

		// `models`: every name a string.
		const models = await call("GET", "/agent/models", { headers });
		expect(models.status).toBe(200);
		const names = await json<Record<string, unknown>>(models);
		for (const name of ["chat_model", "agent_model", "streaming_model", "meeting_model"]) expect(typeof names[name], name).toBe("string");

		// `send-bot`: its body carries `url` beside the native id.
		const bot = await call("POST", "/bots", {
			headers,
			json: { platform: "google_meet", native_meeting_id: code, bot_name: "VexaSlim", language: "en", url: meetUrl(code) },
		});
		expect(bot.status).toBe(201);
		const meeting = await json<Meeting>(bot);

		// `process` (on): no meeting/start before it; it spawns the copilot.
		const on = await call("POST", "/agent/meeting/process", { headers, json: { native_id: code, platform: "google_meet", on: true } });
		expect(on.status).toBe(202);
		expect(await json(on)).toMatchObject({ processing: true, resumed_from: "0", meeting: meeting.id });

		// `watch`: the stream by native id as both meeting_id and session_uid.
		const stream = await call("GET", `/agent/meeting/stream?meeting_id=${code}&session_uid=${code}`, { headers });
		expect(stream.status).toBe(200);
		const watch = slimWatch(stream);
		try {
			// The bot joins and people speak, as a bot host's bot would send it.
			const host = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
			await host.status("active");
			await host.send(said("s-1", "Alice", `I am Alice from Acme ${m}`));
			await host.send(said("s-2", "Bob", "Welcome, Alice. I will send the deck by Friday.", 2));
			await eventually("the beat's card and a ping while quiet", () =>
				watch.events.some((e) => e.type === "card") && watch.events.some((e) => e.type === "ping") ? true : undefined,
			);

			// `process --off`, then `stop-bot`.
			const off = await call("POST", "/agent/meeting/process", { headers, json: { native_id: code, platform: "google_meet", on: false } });
			expect(off.status).toBe(202);
			expect(await json(off)).toMatchObject({ processing: false });
			const stop = await call("DELETE", `/bots/google_meet/${code}`, { headers });
			expect(stop.status).toBe(204);
			await host.channel.waitFor("leave command", (c) => c.type === "command" && (c.act as { action: string }).action === "leave");
			await host.status("completed", { completion_reason: "left_alone" });

			// The stream ends on its own: the test's timeout would say it did not.
			const events = await watch.done;
			const types = events.map((e) => e.type);
			expect(types).toEqual(expect.arrayContaining(["transcript", "ping", "note", "message-delta", "tool-call", "card"]));
			expect(events.filter((e) => e.type === "transcript").map((e) => e.id)).toEqual(["s-1", "s-2"]);
			expect(events.at(-1)).toEqual({ type: "meeting-end", status: "completed", completion_reason: "stopped" });
			expect(types.filter((t) => t === "meeting-end")).toHaveLength(1);

			// The final beat: its summary text and its card, all before the end.
			const cards = events.filter((e) => e.type === "card");
			expect(cards.map((e) => (e.card as { title: string }).title)).toEqual(["Acme", "Send the deck"]);
			const finalTurn = cards[1]?.turn_id;
			const summary = events.filter((e) => e.type === "message-delta" && e.turn_id === finalTurn).map((e) => e.text);
			expect(summary.join("")).toBe("## Summary\nAcme met Bob; the deck goes out Friday.");
			expect(events.findIndex((e) => e.type === "card" && e.turn_id === finalTurn)).toBe(types.length - 2);
			expect((await sent(m)).length).toBe(2);
		} finally {
			await watch.cancel();
		}
	});
});
