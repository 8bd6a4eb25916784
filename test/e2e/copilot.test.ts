/**
 * The live meeting copilot end to end: a real Chromium bot in a sandbox meeting where two people
 * speak, the copilot's transcript, notes and cards on the meeting stream, and the meeting document
 * committed to the owner's workspace when the bot is stopped. Black-box through wrangler dev.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import { apiAt, botGateway, nativeId, newAccount, sandboxScenario } from "./client";
import { modelRequests, modelServer, script } from "./model-script";
import { collect, type Frame, frames } from "./sse";

const openStream = (key: string, code: string, lastEventId?: number) =>
	fetch(`${botGateway()}/agent/meeting/stream?meeting_id=${code}&session_uid=${code}`, {
		headers: { "X-API-Key": key, ...(lastEventId !== undefined && { "Last-Event-ID": String(lastEventId) }) },
	});

const ofType = (events: Frame[], type: string) => events.filter((e) => e.type === type);

describe("the live meeting copilot with a real bot in a sandbox meeting", () => {
	it("streams transcript, notes and cards while people speak, and commits the meeting document as the owner when the bot stops", async () => {
		const ownerName = "Dana Copilot";
		const { key } = await newAccount(botGateway(), ownerName);
		const models = await apiAt(botGateway(), "PUT", "/user/models", {
			key,
			json: { base_url: `${modelServer()}/v1`, model: "e2e-copilot-model", api_key: "e2e-model-key-0123" },
		});
		expect(models.status).toBe(200);

		// A made-up company whose name only this run says: the beat and the final beat carry it to the model.
		const company = `Zorvantix${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
		const summary = `Summary: ${company} starts a pilot; Bruno sends the contract.`;
		const companyCard = { kind: "company", title: company, body: "Alice Chen's company, starting a pilot", actionable: false };
		const actionCard = { kind: "action_item", title: "Send the contract", body: "Bruno sends it by Friday", actionable: true };
		await script(company, [
			{
				text: ["Alice introduced ", company, "."],
				tool_calls: [
					{ name: "add_card", arguments: companyCard },
					{ name: "add_card", arguments: actionCard },
				],
			},
			// The final beat's reply is the summary; a spare one in case the transcript's line reaches one more beat.
			{ text: [summary] },
			{ text: [summary] },
		]);

		const code = nativeId("google_meet");
		const title = "Pilot kickoff";
		const started = await apiAt<{ meeting_id: string; session_uid: string; native_id: string; processing: boolean; meeting: number }>(
			botGateway(),
			"POST",
			"/agent/api/meeting/start",
			{ key, json: { native_id: code, platform: "google_meet", title } },
		);
		expect(started.status).toBe(202);
		expect(started.body).toMatchObject({ meeting_id: code, session_uid: code, native_id: code, processing: true });

		const res = await openStream(key, code);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
		const live = collect(res);

		await sandboxScenario(code, {
			admit_after_ms: 1000,
			participants: [
				{ name: "Alice Chen", lines: [`Good morning, I am calling from ${company} about the pilot.`] },
				{ name: "Bruno Diaz", lines: ["Great, I will send the contract by Friday."] },
			],
			speech_start_ms: 800,
			speech_gap_ms: 600,
		});
		const bot = await apiAt(botGateway(), "POST", "/bots", {
			key,
			json: { platform: "google_meet", native_meeting_id: code, bot_name: "E2E Copilot" },
		});
		expect(bot.status).toBe(201);
		// The bot claims the plan the copilot started on: one meeting record.
		expect(bot.body.id).toBe(started.body.meeting);

		const cards = await eventually(
			"both cards on the stream",
			() => {
				const found = ofType(live.events, "card");
				return found.length >= 2 ? found : undefined;
			},
			90_000,
		);
		expect(cards.map((c) => c.card)).toEqual([
			{ id: "card-1", ...companyCard },
			{ id: "card-2", ...actionCard },
		]);
		expect(new Set(cards.map((c) => c.turn_id)).size).toBe(1);

		const transcript = ofType(live.events, "transcript");
		const spoken = (speaker: string) =>
			transcript
				.filter((t) => t.speaker === speaker && t.completed)
				.map((t) => t.text)
				.join(" ");
		await eventually("both speakers' completed lines", () => (spoken("Alice Chen") && spoken("Bruno Diaz") ? true : undefined), 45_000);
		expect(spoken("Alice Chen")).toContain(company);
		expect(spoken("Bruno Diaz")).toMatch(/contract/i);
		const notes = ofType(live.events, "note").map((n) => n.note as { id: string; speaker: string; text: string });
		expect(notes.some((n) => n.speaker === "Alice Chen" && n.text.includes(company))).toBe(true);
		expect(notes.some((n) => n.speaker === "Bruno Diaz")).toBe(true);
		const turn = cards[0]?.turn_id;
		expect(
			ofType(live.events, "message-delta")
				.filter((d) => d.turn_id === turn)
				.map((d) => d.text)
				.join(""),
		).toBe(`Alice introduced ${company}.`);
		expect(ofType(live.events, "tool-call").filter((c) => c.turn_id === turn && c.tool === "add_card")).toHaveLength(2);
		// The beat reached the model as the owner's configured model, the transcript fenced as data.
		const [beat] = await modelRequests(company);
		expect(beat?.body.model).toBe("e2e-copilot-model");
		expect(beat?.body.messages.at(-1)?.content).toContain(`Alice Chen: Good morning, I am calling from ${company}`);

		// Relay health counts the segments that reached the live copilot.
		const health = await apiAt<{ native_resolve: { ok: boolean }; ingest: { ok: boolean; segments: number } }>(
			botGateway(),
			"GET",
			"/agent/meeting/relay-health",
			{ key },
		);
		expect(health.status).toBe(200);
		expect(health.body.native_resolve.ok).toBe(true);
		expect(health.body.ingest.ok).toBe(true);
		expect(health.body.ingest.segments).toBeGreaterThan(0);

		expect((await apiAt(botGateway(), "DELETE", `/bots/google_meet/${code}`, { key })).status).toBe(204);
		const end = await eventually("meeting-end on the stream", () => ofType(live.events, "meeting-end")[0], 60_000);
		expect(end).toMatchObject({ status: "completed", completion_reason: "stopped" });
		// Nothing follows the end: the stream closes right after it.
		await eventually("the stream closed after meeting-end", () => (live.state.ended ? true : undefined), 10_000);
		expect(live.events.at(-1)?.type).toBe("meeting-end");

		const path = `kg/entities/meeting/${code}.md`;
		const file = await eventually(
			"the meeting document",
			async () => {
				const found = await apiAt<{ path: string; content: string }>(
					botGateway(),
					"GET",
					`/agent/api/workspace/file?path=${encodeURIComponent(path)}`,
					{ key },
				);
				return found.status === 200 ? found.body : undefined;
			},
			60_000,
		);
		const front = file.content.split("---\n")[1] ?? "";
		expect(file.content.startsWith("---\n")).toBe(true);
		expect(front).toContain("type: meeting\n");
		for (const field of ["id", "meeting_id", "session_uid"]) expect(front).toContain(`${field}: "${code}"\n`);
		expect(front).toContain(`title: "${title}"\n`);
		expect(front).toContain('platform: "google_meet"\n');
		expect(file.content).toContain(summary);
		const final = (await modelRequests(company)).at(-1);
		expect(final?.body.messages.at(-1)?.content).toContain("The meeting has ended");

		const git = await apiAt<{ commits: { author: string; kind: string; files: string[] }[] }>(
			botGateway(),
			"GET",
			"/agent/api/workspace/git",
			{ key },
		);
		expect(git.status).toBe(200);
		const commit = git.body.commits.find((c) => c.files.includes(path));
		// `kind: you`: the commit's author email is the caller's.
		expect(commit).toMatchObject({ author: ownerName, kind: "you" });

		// Every event has an id, strictly increasing, in one sequence.
		const ids = live.events.map((e) => e.id);
		expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > (ids[i - 1] ?? 0)))).toBe(true);

		// Reconnecting from the middle gives exactly the events after it: no gap, nothing twice.
		const middle = live.events[Math.floor(live.events.length / 2)]?.id ?? 0;
		const lastSeen = live.events.at(-1)?.id ?? 0;
		const expected = live.events.filter((e) => e.id > middle);
		expect(expected.length).toBeGreaterThan(0);
		const resumed = await openStream(key, code, middle);
		expect(resumed.status).toBe(200);
		const again = frames(resumed);
		const replayed: Frame[] = [];
		try {
			while ((replayed.at(-1)?.id ?? 0) < lastSeen) {
				const frame = await again.next();
				if (!frame) break;
				if (frame.type !== "ping") replayed.push(frame);
			}
		} finally {
			await again.cancel();
			await live.stop();
		}
		expect(replayed).toHaveLength(expected.length);
		expect(replayed).toEqual(expected);
		expect(live.state.error).toBeUndefined();
	}, 240_000);
});
