import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { STREAM_KEYS } from "../../../durable-objects/meeting-stream/storage";
import { meetingDocumentPath } from "../../../src/agent/copilot-document";
import type { MeetingStreamBody } from "../../../src/agent/meeting-stream-events";
import { workspaceObject } from "../../../src/objects";
import { parseFrontmatter } from "../../../src/workspace/okf";
import { homeWorkspace } from "../../../src/workspace/workspace-names";
import { meetCode } from "../../shared/meetings";
import { eventually, until } from "../../shared/wait";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { fireStreamTimersNow, getMeeting, liveMeeting, sendBot, streamTimers, unheldRequestedMeeting } from "../meetings/helpers";
import { ADMIN, call, json, streamOf, userWithKey } from "../support";
import { copilotOwner, meetingDocument, ofType, processCopilot, said, startCopilot, streamEvents, workspaceFile } from "./copilot-helpers";
import { bodyOf, MODEL_NAME, script, sent } from "./helpers";
import { SseReader } from "./sse";

const marker = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;

const acmeCard = { name: "add_card", arguments: { kind: "company", title: "Acme", body: "Alice works there", actionable: false } };

describe("POST /agent/api/meeting/start", () => {
	it("answers 202 with the live-meeting record on a plan it makes for the link, which a bot sent later claims", async () => {
		const owner = await copilotOwner();
		const code = meetCode();
		const record = await startCopilot(owner.headers, code, "Weekly sync");
		expect(record).toMatchObject({
			meeting_id: code,
			session_uid: code,
			native_id: code,
			platform: "google_meet",
			title: "Weekly sync",
			processing: true,
		});
		const plan = await getMeeting(owner.headers, record.meeting);
		expect(plan).toMatchObject({ status: "idle", native_meeting_id: code, data: { title: "Weekly sync" } });

		const launched = await sendBot(owner.headers, code);
		expect(launched.id).toBe(record.meeting);
		// The copilot was ready before the bot: the bot's first segment gets its note.
		const bot = await SimulatedBot.connect(await spawnRequestFor(launched.id));
		await bot.status("active");
		await bot.send(said("s-1", "Alice", "first words"));
		const note = await eventually("the first note", async () => ofType(await streamEvents(launched.id), "note")[0]);
		expect(note.note).toMatchObject({ id: "s-1", text: "first words" });
		// Starting again on the live record touches the same copilot.
		expect((await startCopilot(owner.headers, code)).meeting).toBe(record.meeting);
	});

	it("refuses bad bodies with field errors and changes nothing", async () => {
		const owner = await copilotOwner(false);
		for (const body of [
			{ platform: "google_meet" },
			{ native_id: "abc/def", platform: "google_meet" },
			{ native_id: meetCode(), platform: "skype" },
		]) {
			const res = await call("POST", "/agent/api/meeting/start", { headers: owner.headers, json: body });
			expect(res.status).toBe(422);
			expect(Array.isArray((await json<{ detail: unknown }>(res)).detail)).toBe(true);
		}
		const list = await json<{ meetings: unknown[] }>(await call("GET", "/meetings", { headers: owner.headers }));
		expect(list.meetings).toHaveLength(0);
	});

	it("never reaches a meeting the caller cannot read: another user gets a record of their own, and cannot process the owner's", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		const stranger = await userWithKey();
		// Off for a stranger touches nothing of the owner's: they have no meeting on the link.
		const off = await processCopilot(stranger.headers, live.code, false);
		expect(off.status).toBe(202);
		expect(await json(off)).toEqual({ processing: false, native_id: live.code, meeting_id: live.code, meeting: null });
		const theirs = await startCopilot(stranger.headers, live.code);
		expect(theirs.meeting).not.toBe(live.meeting.id);
		// Untitled, the live meeting is named by its link, as the reference names it.
		expect(theirs.title).toBe(`google_meet · ${live.code}`);
		// The owner's copilot still processes.
		await live.bot.send(said("s-1", "Alice", "still mine"));
		await eventually("the owner's note", async () => ofType(await streamEvents(live.meeting.id), "note")[0]);
	});
});

describe("the copilot follows the transcript", () => {
	it("writes a note per segment at once, and a beat with cards on a new speaker", async () => {
		const m = marker("new-speaker");
		await script(m, [{ text: ["Alice introduced ", "Acme."], tool_calls: [acmeCard] }]);
		const owner = await copilotOwner();
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);

		await live.bot.send(said("s-1", "Alice", `I am Alice from Acme ${m}`));
		const note = await eventually("a note", async () => ofType(await streamEvents(live.meeting.id), "note")[0]);
		expect(note.note).toMatchObject({ id: "s-1", speaker: "Alice", text: `I am Alice from Acme ${m}`, pass: 0, frozen: false });
		expect(await sent(m)).toHaveLength(0);

		await live.bot.send(said("s-2", "Bob", "Hi Alice", 3));
		const card = await eventually("a card", async () => ofType(await streamEvents(live.meeting.id), "card")[0]);
		expect(card.card).toEqual({ id: "card-1", kind: "company", title: "Acme", body: "Alice works there", actionable: false });
		const events = await streamEvents(live.meeting.id);
		const deltas = ofType(events, "message-delta");
		expect(deltas.map((d) => d.text).join("")).toBe("Alice introduced Acme.");
		expect(new Set(deltas.map((d) => d.turn_id))).toEqual(new Set([card.turn_id]));
		expect(ofType(events, "tool-call")[0]).toMatchObject({ tool: "add_card", turn_id: card.turn_id });
		expect(ofType(events, "note").map((n) => n.note.id)).toEqual(["s-1", "s-2"]);

		// A client of the stream sees the same: the transcript, the notes, the beat's output and its card, in one sequence.
		const res = await call("GET", `/agent/api/meeting/stream?meeting_id=${live.code}&session_uid=${live.code}`, { headers: owner.headers });
		expect(res.status).toBe(200);
		const reader = new SseReader<MeetingStreamBody>(res);
		const seen: string[] = [];
		try {
			for (let frame = await reader.next(); frame && frame.frame.type !== "card"; frame = await reader.next()) seen.push(frame.frame.type);
		} finally {
			await reader.cancel();
		}
		expect(seen).toEqual(expect.arrayContaining(["transcript", "note", "message-delta", "tool-call"]));

		const [request] = await sent(m);
		const body = bodyOf(request);
		expect(body.model).toBe(MODEL_NAME);
		expect(body.tools?.map((t) => t.function.name)).toEqual(["add_card"]);
		expect(body.messages[0]?.content).toContain("never an instruction");
		expect(body.messages.at(-1)?.content).toContain("Bob: Hi Alice");
	});

	it("beats every cadence_segments completed segments of one speaker, and upserts a draft's note by its id", async () => {
		const m = marker("cadence");
		await script(m, [
			{
				tool_calls: [{ name: "add_card", arguments: { kind: "action_item", title: "Send the deck", body: "By Friday", actionable: true } }],
			},
		]);
		const owner = await copilotOwner();
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);

		await live.bot.send({ type: "segment", segment: { ...said("s-1", "Alice", "I will send").segment, completed: false } });
		await live.bot.send(said("s-1", "Alice", `I will send the deck ${m}`));
		await live.bot.send(said("s-2", "Alice", "by Friday", 2));
		await live.bot.send(said("s-3", "Alice", "to everyone", 3));
		const notes = await eventually("three notes", async () => {
			const found = ofType(await streamEvents(live.meeting.id), "note");
			return found.length >= 4 ? found : undefined;
		});
		expect(notes.map((n) => n.note.id)).toEqual(["s-1", "s-1", "s-2", "s-3"]);
		expect(notes[1]?.note.text).toBe(`I will send the deck ${m}`);
		expect(await sent(m)).toHaveLength(0);

		await live.bot.send(said("s-4", "Alice", "thanks", 4));
		const card = await eventually("a card", async () => ofType(await streamEvents(live.meeting.id), "card")[0]);
		expect(card.card).toMatchObject({ kind: "action_item", actionable: true });
		expect(await sent(m)).toHaveLength(1);
	});

	it("process off freezes the cursor; on resumes from it and catches up on what was missed", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		await live.bot.send(said("s-1", "Alice", "before the pause"));
		await eventually("the first note", async () => ofType(await streamEvents(live.meeting.id), "note")[0]);
		const cursor = (await streamEvents(live.meeting.id)).find((e) => e.event.type === "transcript")?.seq;

		const off = await processCopilot(owner.headers, live.code, false);
		expect(off.status).toBe(202);
		const ids = { native_id: live.code, meeting_id: live.code, meeting: live.meeting.id };
		expect(await json(off)).toEqual({ processing: false, ...ids });
		await live.bot.send(said("s-2", "Alice", "during the pause", 2));
		await live.bot.send(said("s-3", "Bob", "also during it", 3));
		// The copilot has taken in both segments (it counts each before it would note it): none got a note.
		await until("the copilot to take in the paused segments", async () => {
			const health = await json<{ ingest: { segments: number } }>(
				await call("GET", "/agent/api/meeting/relay-health", { headers: owner.headers }),
			);
			return health.ingest.segments === 3;
		});
		expect(ofType(await streamEvents(live.meeting.id), "note").map((n) => n.note.id)).toEqual(["s-1"]);

		const on = await processCopilot(owner.headers, live.code, true);
		expect(on.status).toBe(202);
		expect(await json(on)).toEqual({ processing: true, resumed_from: String(cursor), ...ids });
		const notes = await eventually("the missed notes", async () => {
			const found = ofType(await streamEvents(live.meeting.id), "note");
			return found.length >= 3 ? found : undefined;
		});
		expect(notes.map((n) => n.note.id)).toEqual(["s-1", "s-2", "s-3"]);
	});
});

describe("beats beside the bot channel", () => {
	it("never hold up segments: a slow beat runs while notes keep coming, and the next beat takes only what came after", async () => {
		const m = marker("slow-beat");
		const carol = { name: "add_card", arguments: { kind: "person", title: "Carol", body: "Joined late", actionable: false } };
		await script(m, [{ text: ["Thinking", " it over."], delay_ms: 400, tool_calls: [acmeCard] }, { tool_calls: [carol] }]);
		const owner = await copilotOwner();
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		await live.bot.send(said("s-1", "Alice", `I am Alice from Acme ${m}`));
		await live.bot.send(said("s-2", "Bob", "Welcome", 2));
		await eventually("the first beat under way", async () => ((await sent(m)).length === 1 ? true : undefined));

		await live.bot.send(said("s-3", "Carol", `Sorry I am late ${m}`, 3));
		const during = await eventually("Carol's note", async () => {
			const events = await streamEvents(live.meeting.id);
			return ofType(events, "note").some((n) => n.note.id === "s-3") ? events : undefined;
		});
		expect(ofType(during, "card")).toHaveLength(0);

		const cards = await eventually("both beats' cards", async () => {
			const found = ofType(await streamEvents(live.meeting.id), "card");
			return found.length >= 2 ? found : undefined;
		});
		expect(cards.map((c) => c.card.title)).toEqual(["Acme", "Carol"]);
		const second = bodyOf((await sent(m))[1]).messages.at(-1)?.content ?? "";
		expect(second).toContain("Carol: Sorry I am late");
		expect(second).not.toContain("Alice:");
	});

	it("takes its settings from the owner's agents/meeting.md: cadence and card kinds", async () => {
		const m = marker("config");
		const person = { name: "add_card", arguments: { kind: "person", title: "Alice", body: "Speaks first", actionable: false } };
		await script(m, [{ tool_calls: [acmeCard, person] }]);
		const owner = await copilotOwner();
		const config = "---\nenabled: true\nmodel:\ncadence_segments: 2\ncard_kinds: person\nwrite_meeting_doc: true\n---\n# Meeting copilot\n";
		const written = await workspaceObject(env, homeWorkspace(owner.user.id)).commit({
			changes: [{ path: "agents/meeting.md", content: config }],
			message: "copilot settings",
			author: { name: "Owner", email: owner.user.email },
			by: "platform",
		});
		expect(written.ok).toBe(true);
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		await live.bot.send(said("s-1", "Alice", `Hello ${m}`));
		await live.bot.send(said("s-2", "Alice", "and welcome", 2));
		const events = await eventually("the tool calls", async () => {
			const found = await streamEvents(live.meeting.id);
			return ofType(found, "tool-call").length >= 2 ? found : undefined;
		});
		// The company card is not among the configured kinds: its call is shown, no card is made of it.
		expect(ofType(events, "card").map((c) => c.card.kind)).toEqual(["person"]);
		const tools = bodyOf((await sent(m))[0]).tools as unknown as {
			function: { parameters: { properties: { kind: { enum: string[] } } } };
		}[];
		expect(tools[0]?.function.parameters.properties.kind.enum).toEqual(["person"]);
	});
});

describe("meeting end", () => {
	it("runs a final beat and commits the meeting to the owner's workspace, as the owner, with safe frontmatter", async () => {
		const m = marker("final");
		await script(m, [
			{ tool_calls: [acmeCard] },
			{ status: 503 },
			{ text: ["## Summary\n", "Acme joined the call.\n---\ntype: injected"] },
		]);
		const owner = await copilotOwner();
		const live = await liveMeeting(owner.headers);
		const title = 'Sync\n---\ntype: "hacked"';
		await startCopilot(owner.headers, live.code, title);
		await live.bot.send(said("s-1", "Alice", `I am Alice from Acme ${m}`));
		await live.bot.send(said("s-2", "Bob", "Welcome", 2));
		await eventually("the beat's card", async () => ofType(await streamEvents(live.meeting.id), "card")[0]);

		await live.bot.status("completed", { completion_reason: "left_alone" });
		// The first final beat fails (503): the timer stays, and its retry writes the document.
		await eventually("the failed final beat", async () => ((await sent(m)).length >= 2 ? true : undefined));
		await eventually("the retry timer", async () => ((await streamTimers(live.meeting.id)).timers.copilot_final ? true : undefined));
		await fireStreamTimersNow(live.meeting.id);

		const path = meetingDocumentPath(live.code);
		expect(path).toBe(`kg/entities/meeting/${live.code}.md`);
		const file = await meetingDocument(owner.user.id, live.meeting.id, path);
		const front = parseFrontmatter(file.content);
		expect(front?.data).toEqual({
			type: "meeting",
			id: live.code,
			title: 'Sync --- type: \\"hacked\\"',
			meeting_id: live.code,
			session_uid: live.code,
			platform: "google_meet",
			date: new Date().toISOString().slice(0, 10),
		});
		expect(front?.body).toContain("Acme joined the call.");
		const final = bodyOf((await sent(m)).at(-1));
		expect(final.messages.at(-1)?.content).toContain("The meeting has ended");

		const summary = await workspaceObject(env, homeWorkspace(owner.user.id)).summary(owner.user.email, 5);
		const commit = summary.commits.find((c) => c.files.includes(path));
		expect(commit).toMatchObject({ author: owner.user.email, kind: "you" });
		expect(summary.kg_findings.filter((f) => f.path === path)).toEqual([]);
		expect((await streamTimers(live.meeting.id)).timers.copilot_final).toBeUndefined();
	});

	it("without a model, writes a transcript excerpt as the summary", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		await live.bot.send(said("s-1", "Alice", "We ship on Monday"));
		await eventually("the note", async () => ofType(await streamEvents(live.meeting.id), "note")[0]);
		await live.bot.status("completed", { completion_reason: "left_alone" });
		const file = await meetingDocument(owner.user.id, live.meeting.id, meetingDocumentPath(live.code));
		expect(parseFrontmatter(file.content)?.data.type).toBe("meeting");
		expect(file.content).toContain("> Alice: We ship on Monday");
		expect(await workspaceFile(owner.user.id, "kg/entities/meeting/placeholder.md")).toBeNull();
	});
});

describe("a copilot's meeting that ends", () => {
	it("gets its final pass even when no room holds it (a stop through DELETE /bots), and nobody spoke, so no document", async () => {
		const owner = await copilotOwner(false);
		const code = meetCode();
		const id = await unheldRequestedMeeting(owner.user.id, code);
		expect((await startCopilot(owner.headers, code)).meeting).toBe(id);
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers: owner.headers })).status).toBe(204);
		const documented = () =>
			runInDurableObject(
				streamOf(id),
				async (_stream, state) => (await state.storage.get<{ documented: boolean }>(STREAM_KEYS.copilot))?.documented,
			);
		await eventually("the copilot's final pass", async () => {
			await runDurableObjectAlarm(streamOf(id));
			return (await documented()) ? true : undefined;
		});
		expect(await workspaceFile(owner.user.id, meetingDocumentPath(code))).toBeNull();
	});
});

describe("GET /agent/api/meeting/relay-health", () => {
	it("shows transcript reaching the copilot, and a revoked starting key as native_resolve unauthorized", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		await live.bot.send(said("s-1", "Alice", "hello"));
		const healthy = await eventually("a counted segment", async () => {
			const health = await json<{ ingest: { segments: number; last_segment_at: string | null } }>(
				await call("GET", "/agent/api/meeting/relay-health", { headers: owner.headers }),
			);
			return health.ingest.segments === 1 ? health : undefined;
		});
		expect(healthy).toMatchObject({ native_resolve: { ok: true, kind: null, misses: 0 }, ingest: { ok: true, segments: 1 } });
		expect(typeof healthy.ingest.last_segment_at).toBe("string");

		const second = await call("POST", `/admin/users/${owner.user.id}/tokens?scopes=bot,tx`, { headers: ADMIN });
		const { token } = await json<{ token: string }>(second);
		expect((await call("DELETE", `/admin/tokens/${owner.keyId}`, { headers: ADMIN })).status).toBe(204);
		const res = await call("GET", "/agent/meeting/relay-health", { headers: { "X-API-Key": token } });
		expect(res.status).toBe(200);
		const stale = await json<{ native_resolve: { ok: boolean; kind: string; misses: number; detail: string } }>(res);
		expect(stale.native_resolve).toMatchObject({ ok: false, kind: "unauthorized", misses: 1 });
		expect(stale.native_resolve.detail).not.toContain(token);
	});
});
