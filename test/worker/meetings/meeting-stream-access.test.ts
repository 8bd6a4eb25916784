import { describe, expect, it } from "vitest";
import type { MeetingStreamEvent as Frame } from "../../../src/agent/meeting-stream-events";
import { type Meeting, meetCode } from "../../shared/meetings";
import { SseReader } from "../agent/sse";
import { ADMIN, call, createUser, json, sharedWorkspace } from "../support";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { createPlan, meetUrl, segment, sendBot } from "./helpers";

const UNREADABLE = "You can no longer read this meeting (your membership of its workspace or its binding changed, or it was deleted)";
const KEY_ENDED = "The API key this stream was opened with was revoked or has expired";

async function mint(userId: number, body: Record<string, unknown> = {}) {
	const res = await call("POST", `/admin/users/${userId}/tokens`, { headers: ADMIN, json: { scopes: ["bot", "tx"], ...body } });
	expect(res.status).toBe(201);
	const key = await json<{ id: number; token: string }>(res);
	return { keyId: key.id, headers: { "X-API-Key": key.token } };
}

async function person() {
	const user = await createUser();
	return { user, ...(await mint(user.id)) };
}

/** V's meeting bound to workspace `team`, where B is a member too: a plan, which both can read. */
async function sharedPlan() {
	const owner = await person();
	const member = await person();
	const team = await sharedWorkspace(owner.user.id, member.user.id);
	const code = meetCode();
	const plan = await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: team });
	return { owner, member, team, code, plan };
}

async function joinedBot(meeting: Meeting) {
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("active");
	return bot;
}

const say = (bot: SimulatedBot, n: number) => bot.send({ type: "segment", segment: segment({ segment_id: `s-${n}`, text: `line ${n}` }) });

/** A stream as its reader follows it; pings are left out. */
class Follower {
	private constructor(private readonly reader: SseReader<Frame>) {}

	static async open(headers: Record<string, string>, meetingId: number): Promise<Follower> {
		const res = await call("GET", `/agent/api/meeting/stream?meeting_id=${meetingId}`, { headers });
		expect(res.status).toBe(200);
		return new Follower(new SseReader<Frame>(res));
	}

	/** Events up to and including the first `done` one; `null` in the list marks the stream's end. */
	async until(done: (frame: Frame) => boolean): Promise<(Frame | null)[]> {
		const seen: (Frame | null)[] = [];
		for (;;) {
			const event = await this.reader.next();
			if (!event) return [...seen, null];
			if (event.frame.type === "ping") continue;
			seen.push(event.frame);
			if (done(event.frame)) return seen;
		}
	}

	/** What follows until the transcript line `text` arrives, or the stream ends (a reader that lost access must not see it). */
	untilLine(text: string) {
		return this.until((frame) => frame.type === "transcript" && frame.text === text);
	}

	cancel() {
		return this.reader.cancel();
	}
}

const texts = (frames: (Frame | null)[]) => frames.map((f) => (f === null ? "end" : f.type === "transcript" ? f.text : f.type));
const ended = (message: string) => [{ type: "error", reason: "access_revoked", message }, null];

describe("an open meeting stream ends when access ends", () => {
	it("removing a member from the workspace ends their stream of its meeting; the owner's goes on", async () => {
		const { owner, member, team, code, plan } = await sharedPlan();
		const bot = await joinedBot(await sendBot(owner.headers, code));
		const theirs = await Follower.open(member.headers, plan.id);
		const mine = await Follower.open(owner.headers, plan.id);
		try {
			await say(bot, 1);
			expect(texts(await theirs.untilLine("line 1"))).toEqual(["line 1"]);
			expect(texts(await mine.untilLine("line 1"))).toEqual(["line 1"]);

			const removed = await call("DELETE", `/admin/workspaces/${team}/members/${member.user.id}`, { headers: ADMIN });
			expect(removed.status).toBe(204);
			await say(bot, 2);
			expect(await theirs.untilLine("line 2")).toEqual(ended(UNREADABLE));
			expect(texts(await mine.untilLine("line 2"))).toEqual(["line 2"]);
			// Reconnecting is refused as for any meeting they cannot read.
			const again = await call("GET", `/agent/api/meeting/stream?meeting_id=${plan.id}`, { headers: member.headers });
			expect(again.status).toBe(404);
			await again.body?.cancel();
		} finally {
			await theirs.cancel();
			await mine.cancel();
		}
	});

	it("unbinding the meeting from the workspace ends a member's stream; the owner's goes on", async () => {
		const { owner, member, code, plan } = await sharedPlan();
		const theirs = await Follower.open(member.headers, plan.id);
		const mine = await Follower.open(owner.headers, plan.id);
		try {
			const unbound = await call("PATCH", `/meetings/${plan.id}`, { headers: owner.headers, json: { workspace_id: null } });
			expect(unbound.status).toBe(200);
			await unbound.body?.cancel();
			const bot = await joinedBot(await sendBot(owner.headers, code));
			await say(bot, 1);
			expect(await theirs.untilLine("line 1")).toEqual(ended(UNREADABLE));
			expect(texts(await mine.untilLine("line 1"))).toEqual(["line 1"]);
		} finally {
			await theirs.cancel();
			await mine.cancel();
		}
	});

	it("revoking a key ends the streams opened with it, and only those", async () => {
		const { owner, member, code, plan } = await sharedPlan();
		const other = await mint(member.user.id);
		const bot = await joinedBot(await sendBot(owner.headers, code));
		const revoked = await Follower.open(member.headers, plan.id);
		const kept = await Follower.open(other.headers, plan.id);
		try {
			await say(bot, 1);
			expect(texts(await revoked.untilLine("line 1"))).toEqual(["line 1"]);
			expect((await call("DELETE", `/admin/tokens/${member.keyId}`, { headers: ADMIN })).status).toBe(204);
			await say(bot, 2);
			expect(await revoked.untilLine("line 2")).toEqual(ended(KEY_ENDED));
			expect(texts(await kept.untilLine("line 2"))).toEqual(["line 1", "line 2"]);
		} finally {
			await revoked.cancel();
			await kept.cancel();
		}
	});

	it("a key that expires ends its streams at the room's next re-check", async () => {
		const owner = await person();
		const code = meetCode();
		const meeting = await sendBot(owner.headers, code);
		const bot = await joinedBot(meeting);
		const shortLived = await mint(owner.user.id, { expires_in: 1 });
		const stream = await Follower.open(shortLived.headers, meeting.id);
		// The bot keeps talking while the key runs out: the stream ends on its own, no route is called.
		let talking = true;
		const talk = (async () => {
			for (let n = 1; talking; n++) {
				await say(bot, n);
				await new Promise((r) => setTimeout(r, 50));
			}
		})();
		try {
			const frames = await stream.until((frame) => frame.type === "error");
			expect(frames.at(-1)).toEqual(ended(KEY_ENDED)[0]);
			expect(await stream.until(() => false)).toEqual([null]);
		} finally {
			talking = false;
			await talk;
			await stream.cancel();
		}
	});
});
