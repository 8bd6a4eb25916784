import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingStream } from "../../../durable-objects/meeting-stream";
import { STREAM_KEYS } from "../../../durable-objects/meeting-stream/storage";
import { meetingDocumentPath } from "../../../src/agent/copilot-document";
import { workspaceObject } from "../../../src/objects";
import { parseFrontmatter } from "../../../src/workspace/okf";
import { homeWorkspace } from "../../../src/workspace/workspace-names";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { createPlan, fireStreamTimersNow, fireTimersNow, getMeeting, meetUrl, sendBot } from "../meetings/helpers";
import { call, json, sharedWorkspace, streamOf } from "../support";
import { copilotOwner, meetingDocument, ofType, processCopilot, said, startCopilot, streamEvents, workspaceFile } from "./copilot-helpers";
import { MODEL_KEY, script, sent } from "./helpers";

const OWNER_ONLY = { detail: "Only the meeting's owner can start, pause or resume its copilot" };
const INJECTED = "Injected title from attacker";

const marker = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;

/** The review's demo: V plans a meeting bound to workspace `team`; A, a member of `team`, can read it. */
async function sharedMeeting() {
	const owner = await copilotOwner();
	const member = await copilotOwner(false);
	const team = await sharedWorkspace(owner.user.id, member.user.id);
	const code = meetCode();
	const plan = await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: team, title: "Weekly sync" });
	expect((await getMeeting(member.headers, plan.id)).user_id).toBe(owner.user.id);
	return { owner, member, code, plan };
}

const startAs = (headers: Record<string, string>, code: string) =>
	call("POST", "/agent/api/meeting/start", { headers, json: { native_id: code, platform: "google_meet", title: INJECTED } });

async function joinedBot(meeting: Meeting) {
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("active");
	return bot;
}

/** The meeting's commits in the owner's home workspace. */
async function meetingCommits(userId: number, email: string, code: string) {
	const summary = await workspaceObject(env, homeWorkspace(userId)).summary(email, 50);
	return summary.commits.filter((c) => c.files.includes(meetingDocumentPath(code)));
}

describe("a meeting's copilot belongs to the meeting's owner", () => {
	it("refuses a member's start with 403 and starts nothing: no model call on the owner's key, no commit as the owner", async () => {
		const m = marker("member-start");
		const { owner, member, code, plan } = await sharedMeeting();
		const refused = await startAs(member.headers, code);
		expect(refused.status).toBe(403);
		expect(await refused.json()).toEqual(OWNER_ONLY);
		// Nothing changed: the plan keeps its title, and the member got no plan of their own on the link.
		expect((await getMeeting(owner.headers, plan.id)).data.title).toBe("Weekly sync");
		const theirs = (await json<{ meetings: Meeting[] }>(await call("GET", "/meetings", { headers: member.headers }))).meetings;
		expect(theirs.filter((r) => r.native_meeting_id === code).map((r) => r.id)).toEqual([plan.id]);

		// The owner's bot joins and people speak: no copilot hears them.
		const launched = await sendBot(owner.headers, code);
		expect(launched.id).toBe(plan.id);
		const bot = await joinedBot(launched);
		await bot.send(said("s-1", "Alice", `I am Alice from Acme ${m}`));
		await bot.send(said("s-2", "Bob", `Welcome ${m}`, 2));
		await eventually("both lines logged", async () => (ofType(await streamEvents(plan.id), "transcript").length >= 2 ? true : undefined));
		const copilot = await runInDurableObject(streamOf(plan.id), (_stream: MeetingStream, state) => state.storage.get(STREAM_KEYS.copilot));
		expect(copilot).toBeUndefined();
		expect(ofType(await streamEvents(plan.id), "note")).toEqual([]);
		expect(await sent(m)).toEqual([]);

		await bot.status("completed", { completion_reason: "left_alone" });
		await fireTimersNow(plan.id);
		await fireStreamTimersNow(plan.id);
		expect(await workspaceFile(owner.user.id, meetingDocumentPath(code))).toBeNull();
		expect(await meetingCommits(owner.user.id, owner.user.email, code)).toEqual([]);
	});

	it("refuses a member's restart and process on/off; the owner's copilot keeps its state, title and key", async () => {
		const m = marker("member-process");
		await script(m, [{ text: ["Noted."] }, { text: ["## Summary\n", "Alice spoke."] }]);
		const { owner, member, code, plan } = await sharedMeeting();
		const launched = await sendBot(owner.headers, code);
		const bot = await joinedBot(launched);
		expect(await startCopilot(owner.headers, code)).toMatchObject({ meeting: plan.id, title: "Weekly sync", processing: true });

		// A switches it off and restarts it with a title of their own: both refused.
		for (const res of [await processCopilot(member.headers, code, false), await startAs(member.headers, code)]) {
			expect(res.status).toBe(403);
			expect(await res.json()).toEqual(OWNER_ONLY);
		}
		// Still processing: the next line gets its note.
		await bot.send(said("s-1", "Alice", `first words ${m}`));
		await eventually("the note", async () => ofType(await streamEvents(plan.id), "note")[0]);
		const cursor = (await streamEvents(plan.id)).find((e) => e.event.type === "transcript")?.seq;

		// The owner pauses it; A's resume is refused and the cursor stays frozen.
		const off = await processCopilot(owner.headers, code, false);
		const ids = { native_id: code, meeting_id: code, meeting: plan.id };
		expect(await off.json()).toEqual({ processing: false, ...ids });
		const resume = await processCopilot(member.headers, code, true);
		expect(resume.status).toBe(403);
		expect(await resume.json()).toEqual(OWNER_ONLY);
		await bot.send(said("s-2", "Bob", "during the pause", 2));
		await eventually("the paused line logged", async () =>
			ofType(await streamEvents(plan.id), "transcript").length >= 2 ? true : undefined,
		);
		const on = await processCopilot(owner.headers, code, true);
		expect(await on.json()).toEqual({ processing: true, resumed_from: String(cursor), ...ids });

		// The meeting ends: the document is the owner's title, committed as the owner, and every model call was on the owner's key.
		await bot.status("completed", { completion_reason: "left_alone" });
		const file = await meetingDocument(owner.user.id, plan.id, meetingDocumentPath(code));
		expect(parseFrontmatter(file.content)?.data.title).toBe("Weekly sync");
		const commits = await meetingCommits(owner.user.id, owner.user.email, code);
		expect(commits.map((c) => [c.msg, c.author])).toEqual([["Meeting: Weekly sync", owner.user.email]]);
		const calls = await sent(m);
		expect(calls.length).toBeGreaterThan(0);
		expect(calls.map((r) => r.headers.authorization)).toEqual(calls.map(() => `Bearer ${MODEL_KEY}`));
	});
});

describe("the MeetingStream keeps a copilot its owner's", () => {
	it("never puts a second user's key on a copilot, whoever asks the MeetingStream", async () => {
		const { owner, member, code, plan } = await sharedMeeting();
		await startCopilot(owner.headers, code);
		const stream = streamOf(plan.id);
		const asMember = { userId: member.user.id, scopes: [], tokenId: member.keyId };
		const base = { meetingId: plan.id, nativeId: code, platform: "google_meet" };
		expect(await stream.copilotStart({ caller: asMember, ...base, title: INJECTED })).toBeNull();
		const stored = await runInDurableObject(streamOf(plan.id), (_stream: MeetingStream, state) =>
			state.storage.get<{ caller: { userId: number; tokenId: number }; title: string }>(STREAM_KEYS.copilot),
		);
		expect(stored).toMatchObject({ caller: { userId: owner.user.id, tokenId: owner.keyId }, title: "Weekly sync" });
	});

	it("runs a copilot a member started before the rule on notes only: no model call on the owner's key, no document", async () => {
		const m = marker("legacy");
		const { owner, member, code, plan } = await sharedMeeting();
		const bot = await joinedBot(await sendBot(owner.headers, code));
		await startCopilot(owner.headers, code);
		// As an older version stored it after the member's start: the owner's copilot on the member's key, their title.
		await runInDurableObject(streamOf(plan.id), async (_stream: MeetingStream, state) => {
			const stored = await state.storage.get<Record<string, unknown>>(STREAM_KEYS.copilot);
			await state.storage.put(STREAM_KEYS.copilot, {
				...stored,
				caller: { userId: member.user.id, scopes: [], tokenId: member.keyId },
				title: INJECTED,
			});
		});
		await bot.send(said("s-1", "Alice", `I am Alice from Acme ${m}`));
		await bot.send(said("s-2", "Bob", `Welcome ${m}`, 2));
		await eventually("both notes", async () => (ofType(await streamEvents(plan.id), "note").length >= 2 ? true : undefined));
		await bot.status("completed", { completion_reason: "left_alone" });
		// The final pass runs after every beat: once it is done, so is all the copilot does.
		await eventually("the copilot's final pass", async () => {
			await runDurableObjectAlarm(streamOf(plan.id));
			const stored = await runInDurableObject(streamOf(plan.id), (_stream: MeetingStream, state) =>
				state.storage.get<{ documented: boolean }>(STREAM_KEYS.copilot),
			);
			return stored?.documented ? true : undefined;
		});
		expect(await sent(m)).toEqual([]);
		expect(await workspaceFile(owner.user.id, meetingDocumentPath(code))).toBeNull();
		expect(await meetingCommits(owner.user.id, owner.user.email, code)).toEqual([]);
	});
});
