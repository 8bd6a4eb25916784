import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, call, joinWorkspace, json, userWithKey } from "../support";

const members = async (workspaceId: string) =>
	(
		await env.DB.prepare("SELECT user_id FROM workspace_members WHERE workspace_id = ? ORDER BY user_id")
			.bind(workspaceId)
			.all<{ user_id: number }>()
	).results.map((r) => r.user_id);

describe("workspace membership (admin)", () => {
	it("adds a member idempotently with 204, and the member then reads the workspace's meetings", async () => {
		const owner = await userWithKey();
		const member = await userWithKey();
		const workspace = `ws-${crypto.randomUUID()}`;
		await joinWorkspace(workspace, owner.user.id);
		const plan = await json<{ id: number }>(
			await call("POST", "/meetings", { headers: owner.headers, json: { title: "Shared", workspace_id: workspace } }),
		);
		expect((await call("GET", `/meetings/${plan.id}`, { headers: member.headers })).status).toBe(404);

		const path = `/admin/workspaces/${workspace}/members/${member.user.id}`;
		for (let i = 0; i < 2; i++) {
			const res = await call("PUT", path, { headers: ADMIN });
			expect(res.status).toBe(204);
			expect(await res.text()).toBe("");
		}
		expect(await members(workspace)).toEqual([owner.user.id, member.user.id]);
		const seen = await call("GET", `/meetings/${plan.id}`, { headers: member.headers });
		expect(seen.status).toBe(200);
		expect((await json<{ id: number; workspace_id: string }>(seen)).workspace_id).toBe(workspace);
		// Reading is not owning: a member cannot edit the plan.
		expect((await call("PATCH", `/meetings/${plan.id}`, { headers: member.headers, json: { title: "mine" } })).status).toBe(404);
	});

	it("answers 404 User not found for an unknown user, and stores nothing", async () => {
		const workspace = `ws-${crypto.randomUUID()}`;
		const res = await call("PUT", `/admin/workspaces/${workspace}/members/99999999`, { headers: ADMIN });
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ detail: "User not found" });
		expect(await members(workspace)).toEqual([]);
	});

	it("removes a member with 204 (access ends), and answers 404 when they are not a member", async () => {
		const owner = await userWithKey();
		const member = await userWithKey();
		const workspace = `ws-${crypto.randomUUID()}`;
		await joinWorkspace(workspace, owner.user.id);
		const plan = await json<{ id: number }>(
			await call("POST", "/meetings", { headers: owner.headers, json: { title: "Shared", workspace_id: workspace } }),
		);
		const path = `/admin/workspaces/${workspace}/members/${member.user.id}`;
		expect((await call("PUT", path, { headers: ADMIN })).status).toBe(204);
		expect((await call("GET", `/meetings/${plan.id}`, { headers: member.headers })).status).toBe(200);

		const removed = await call("DELETE", path, { headers: ADMIN });
		expect(removed.status).toBe(204);
		expect(await members(workspace)).toEqual([owner.user.id]);
		expect((await call("GET", `/meetings/${plan.id}`, { headers: member.headers })).status).toBe(404);

		const again = await call("DELETE", path, { headers: ADMIN });
		expect(again.status).toBe(404);
		expect(await again.json()).toEqual({ detail: "Workspace member not found" });
		const otherWorkspace = await call("DELETE", `/admin/workspaces/ws-other-${crypto.randomUUID()}/members/${owner.user.id}`, {
			headers: ADMIN,
		});
		expect(otherWorkspace.status).toBe(404);
	});

	it("needs the admin token: a missing or user key gets 403 and changes nothing", async () => {
		const member = await userWithKey();
		const workspace = `ws-${crypto.randomUUID()}`;
		for (const headers of [{}, member.headers, { "X-Admin-API-Key": "wrong" }] as Record<string, string>[]) {
			for (const method of ["PUT", "DELETE"]) {
				const res = await call(method, `/admin/workspaces/${workspace}/members/${member.user.id}`, { headers });
				expect(res.status, method).toBe(403);
				expect(await res.json()).toEqual({ detail: "Invalid or missing admin token." });
			}
		}
		expect(await members(workspace)).toEqual([]);
	});
});
