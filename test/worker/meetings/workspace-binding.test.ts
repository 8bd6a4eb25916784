import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { ADMIN, call, joinWorkspace, json, sharedWorkspace, userWithKey } from "../support";
import { openSocket, type SocketClient } from "./bot-sim";
import { createPlan, getMeeting, liveMeeting, meetUrl, segment } from "./helpers";

const ref = (native_id: string) => ({ platform: "google_meet", native_id });
const isBundleOf = (id: number, text: string) => (m: Record<string, unknown>) =>
	m.type === "transcript" && (m.meeting as { id: number }).id === id && JSON.stringify(m.confirmed).includes(text);
/*
 * A frame that must not arrive is checked after a ping answered on that socket: the bot's messages are
 * acked once the room has sent them to every watcher's feed, so anything sent would be ahead of the pong.
 */
const notPong = (m: Record<string, unknown>) => m.type !== "pong";
const workspaceName = () => `ws-${crypto.randomUUID()}`;

async function meetingsOf(userId: number): Promise<number> {
	return (await env.DB.prepare("SELECT count(*) AS n FROM meetings WHERE user_id = ?").bind(userId).first<number>("n")) ?? 0;
}

async function subscribed(socket: SocketClient, natives: string[]) {
	const before = socket.messages.length;
	socket.send({ action: "subscribe", meetings: natives.map(ref) });
	return eventually("subscribed ack", () => socket.messages.slice(before).find((m) => m.type === "subscribed"));
}

describe("binding a meeting to a workspace needs membership", () => {
	it("answers 403 {detail} to a non-member's POST /meetings and stores nothing", async () => {
		const outsider = await userWithKey();
		const res = await call("POST", "/meetings", {
			headers: outsider.headers,
			json: { meeting_url: meetUrl(meetCode()), workspace_id: workspaceName(), notes: "attacker text" },
		});
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ detail: "Not a member of this workspace" });
		expect(await meetingsOf(outsider.user.id)).toBe(0);
	});

	it("answers 403 to a non-member's PATCH that binds, changes nothing, and still lets them unbind", async () => {
		const { headers, user } = await userWithKey();
		const mine = workspaceName();
		await joinWorkspace(mine, user.id);
		const plan = await createPlan(headers, { title: "Plan", workspace_id: mine });
		const res = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { title: "Changed", workspace_id: workspaceName() } });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ detail: "Not a member of this workspace" });
		expect(await getMeeting(headers, plan.id)).toEqual(plan);

		const unbound = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { workspace_id: null } });
		expect(unbound.status).toBe(200);
		expect((await json<Meeting>(unbound)).workspace_id).toBeNull();
	});

	it("lets a member bind, on POST and on PATCH", async () => {
		const { headers, user } = await userWithKey();
		const workspace = workspaceName();
		await joinWorkspace(workspace, user.id);
		expect((await createPlan(headers, { workspace_id: workspace })).workspace_id).toBe(workspace);
		const plan = await createPlan(headers, { title: "later" });
		const res = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { workspace_id: workspace } });
		expect(res.status).toBe(200);
		expect((await json<Meeting>(res)).workspace_id).toBe(workspace);
	});
});

describe("a shared link resolves to the caller's own meeting first", () => {
	it("GET /transcripts shows the caller's meeting, not a newer one another member bound to the workspace", async () => {
		const victim = await userWithKey();
		const other = await userWithKey();
		const workspace = await sharedWorkspace(victim.user.id, other.user.id);
		const code = meetCode();
		const own = await liveMeeting(victim.headers, code);
		await own.bot.send({ type: "segment", segment: segment({ text: "the victim's words" }) });

		await createPlan(other.headers, { meeting_url: meetUrl(code), workspace_id: workspace, notes: "other text" });
		const theirs = await liveMeeting(other.headers, code);
		expect(theirs.meeting.id).toBeGreaterThan(own.meeting.id);

		const res = await call("GET", `/transcripts/google_meet/${code}`, { headers: victim.headers });
		expect(res.status).toBe(200);
		const body = await json<{ id: number; notes: string | null; segments: { text: string }[] }>(res);
		expect(body.id).toBe(own.meeting.id);
		expect(body.segments.map((s) => s.text)).toEqual(["the victim's words"]);
		// Each member of the workspace sees their own meeting on the shared link.
		const seen = await json<{ id: number }>(await call("GET", `/transcripts/google_meet/${code}`, { headers: other.headers }));
		expect(seen.id).toBe(theirs.meeting.id);
	});
});

describe("/ws delivery ends when read access ends", () => {
	async function sharedLiveMeeting() {
		const owner = await userWithKey();
		const member = await userWithKey();
		const workspace = await sharedWorkspace(owner.user.id, member.user.id);
		const code = meetCode();
		await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: workspace });
		const memberSocket = await openSocket("/ws", { "X-API-Key": member.key });
		expect(await subscribed(memberSocket, [code])).toEqual({ type: "subscribed", meetings: [ref(code)] });
		return { owner, member, workspace, code, memberSocket };
	}

	it("a member removed from the workspace receives no further frames", async () => {
		const { owner, member, workspace, code, memberSocket } = await sharedLiveMeeting();
		const ownerSocket = await openSocket("/ws", { "X-API-Key": owner.key });
		await subscribed(ownerSocket, [code]);
		const live = await liveMeeting(owner.headers, code);
		await live.bot.send({ type: "segment", segment: segment({ segment_id: "s-a", text: "before removal" }) });
		await memberSocket.waitFor("member gets frames while a member", isBundleOf(live.meeting.id, "before removal"));

		const removed = await call("DELETE", `/admin/workspaces/${workspace}/members/${member.user.id}`, { headers: ADMIN });
		expect(removed.status).toBe(204);
		const notice = await memberSocket.waitFor("revocation notice", (m) => m.type === "unsubscribed");
		expect(notice).toEqual({ type: "unsubscribed", meetings: [ref(code)], reason: "access_revoked" });
		const seenBefore = memberSocket.messages.length;

		await live.bot.send({ type: "segment", segment: segment({ segment_id: "s-b", text: "after removal" }) });
		await live.bot.status("completed", { completion_reason: "stopped" });
		await ownerSocket.waitFor("owner still receives", isBundleOf(live.meeting.id, "after removal"));
		await memberSocket.pingPong();
		expect(memberSocket.messages.slice(seenBefore).filter(notPong)).toEqual([]);
		expect(memberSocket.closed).toBeUndefined();
		memberSocket.close();
		ownerSocket.close();
	});

	it("unbinding a planned meeting stops a member's feed of it before its bot starts", async () => {
		const { owner, code, memberSocket } = await sharedLiveMeeting();
		const plan = (await json<{ meetings: Meeting[] }>(await call("GET", "/meetings", { headers: owner.headers }))).meetings[0];
		const res = await call("PATCH", `/meetings/${plan?.id}`, { headers: owner.headers, json: { workspace_id: null } });
		expect(res.status).toBe(200);
		await memberSocket.waitFor("revocation notice", (m) => m.type === "unsubscribed");
		const seenBefore = memberSocket.messages.length;

		const live = await liveMeeting(owner.headers, code);
		expect(live.meeting.id).toBe(plan?.id);
		await live.bot.send({ type: "segment", segment: segment({ text: "owner only" }) });
		await memberSocket.pingPong();
		expect(memberSocket.messages.slice(seenBefore).filter(notPong)).toEqual([]);
		memberSocket.close();
	});
});
