import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Workspace } from "../../../durable-objects/workspace";
import { app } from "../../../src/app";
import { workspaceObject } from "../../../src/objects";
import { call, json, userWithKey } from "../support";

interface View {
	workspace: string;
	kind: "home" | "repo";
	repo: string | null;
	ref: string | null;
}
interface Attached {
	active: View;
	parked: View[];
}
/** The reference's answer (core/agent/control_plane/api.py `ws_swap`), and ours as `attached`. */
interface Swapped {
	subject: string;
	active: string;
	repo: string | null;
	ref: string | null;
	swapped: boolean;
	cloned: boolean;
	parked: string | null;
	nested: boolean;
	attached: Attached;
}

const PUBLIC_REPO = `${env.GIT_SERVER_URL}/public/notes.git`;
const PRIVATE_REPO = `${env.GIT_SERVER_URL}/private/plans.git`;
const home = (userId: number): View => ({ workspace: `home:${userId}`, kind: "home", repo: null, ref: null });

async function swap(headers: Record<string, string>, body: Record<string, unknown>) {
	return call("POST", "/agent/api/workspace/swap", { headers, json: body });
}

async function attached(headers: Record<string, string>): Promise<Attached> {
	const res = await call("GET", "/agent/api/workspace/attached", { headers });
	expect(res.status).toBe(200);
	return json<Attached>(res);
}

async function rows(userId: number) {
	const { results } = await env.DB.prepare("SELECT * FROM agent_workspaces WHERE user_id = ?").bind(userId).all();
	return results;
}

/** The whole stored text of the workspace's git config, read from the object's own file system. */
async function gitConfig(workspace: string): Promise<string> {
	return runInDurableObject(workspaceObject(env, workspace), async (instance: Workspace) => {
		const files = (instance as unknown as { files: { readFile(path: string, encoding: string): Promise<string> } }).files;
		return files.readFile("/.git/config", "utf8");
	});
}

describe("attached", () => {
	it("shows the home workspace active and nothing parked before any swap", async () => {
		const { user, headers } = await userWithKey();
		expect(await attached(headers)).toEqual({ active: home(user.id), parked: [] });
	});
});

describe("swap to an external repository", () => {
	it("checks out the ref it was asked for, and its summary names that branch", async () => {
		const { headers } = await userWithKey();
		const res = await swap(headers, { repo: PUBLIC_REPO, ref: "release" });
		expect(res.status, await res.clone().text()).toBe(200);
		const body = (await json<Swapped>(res)).attached;
		expect(body.active).toMatchObject({ kind: "repo", repo: PUBLIC_REPO, ref: "release" });
		const git = await json<{ branch: string; commits: { msg: string }[] }>(await call("GET", "/agent/api/workspace/git", { headers }));
		expect(git.branch).toBe("release");
		expect(git.commits.map((c) => c.msg.trim())).toEqual(["release notes"]);
		expect(await workspaceObject(env, body.active.workspace).tree(false)).toContain("RELEASE.md");
	});

	it("clones a public repository shallowly, makes it active and parks home; no repo swaps back", async () => {
		const { user, headers } = await userWithKey();
		const res = await swap(headers, { repo: PUBLIC_REPO });
		expect(res.status, await res.clone().text()).toBe(200);
		const body = (await json<Swapped>(res)).attached;
		expect(body.active).toMatchObject({ kind: "repo", repo: PUBLIC_REPO, ref: "main" });
		expect(body.active.workspace).toMatch(new RegExp(`^repo:${user.id}:[0-9a-f]{16}$`));
		expect(body.parked).toEqual([home(user.id)]);
		expect(await attached(headers)).toEqual(body);

		const ws = workspaceObject(env, body.active.workspace);
		expect(await ws.tree(false)).toEqual(["CHANGELOG.md", "README.md", "docs/guide.md"]);
		expect((await ws.read("README.md"))?.content).toBe("# Notes\n\nA public fixture repository.\n");
		// Shallow: the fixture's older commit is not fetched.
		expect((await ws.summary("fixture@example.com", 10)).commits.map((c) => c.msg.trim())).toEqual(["fixture"]);
		expect(await gitConfig(body.active.workspace)).toContain(`url = ${PUBLIC_REPO}`);

		// The git export now serves the attached repository.
		const refs = await call("GET", "/agent/api/workspace/repo.git/info/refs?service=git-upload-pack", { headers });
		const advertised = new TextDecoder().decode(await refs.arrayBuffer());
		const head = (await ws.summary("fixture@example.com", 1)).commits[0]?.sha;
		expect(advertised).toContain(`${head} refs/heads/main\n`);
		// Shallow: the advertisement names the cut, so a client does not ask for the missing parent.
		expect(advertised).toContain(`shallow ${head}\n`);
		const files = await call("GET", "/agent/api/workspace/tree", { headers });
		expect(await json(files)).toEqual({ files: ["CHANGELOG.md", "README.md", "docs/guide.md"] });

		const back = await swap(headers, {});
		expect(back.status).toBe(200);
		expect((await json<Swapped>(back)).attached).toEqual({ active: home(user.id), parked: [{ ...body.active }] });
		expect((await rows(user.id)).map((r) => r.active)).toEqual([0]);

		// Attaching it again restores the same workspace.
		const again = (await json<Swapped>(await swap(headers, { repo: PUBLIC_REPO }))).attached;
		expect(again.active.workspace).toBe(body.active.workspace);
		expect(again.parked).toEqual([home(user.id)]);
	});

	it("answers what the reference's clients read: the active slug, swapped, cloned and the parked slug", async () => {
		const { user, headers } = await userWithKey();
		const first = await json<Swapped>(await swap(headers, { repo: PUBLIC_REPO }));
		const repoWorkspace = first.attached.active.workspace;
		expect(first).toEqual({
			subject: String(user.id),
			active: repoWorkspace,
			repo: PUBLIC_REPO,
			ref: "main",
			swapped: true,
			cloned: true,
			parked: `home:${user.id}`,
			nested: false,
			attached: { active: { workspace: repoWorkspace, kind: "repo", repo: PUBLIC_REPO, ref: "main" }, parked: [home(user.id)] },
		});
		// The same repository again: already active, nothing cloned or parked.
		expect(await json<Swapped>(await swap(headers, { repo: PUBLIC_REPO }))).toMatchObject({
			active: repoWorkspace,
			swapped: false,
			cloned: false,
			parked: null,
		});
		const back = await json<Swapped>(await swap(headers, {}));
		expect(back).toMatchObject({ active: `home:${user.id}`, repo: null, ref: null, swapped: true, cloned: false, parked: repoWorkspace });
		expect(await json<Swapped>(await swap(headers, {}))).toMatchObject({ swapped: false, parked: null });
		// Restored from where it was parked, not cloned again.
		expect(await json<Swapped>(await swap(headers, { repo: PUBLIC_REPO }))).toMatchObject({
			active: repoWorkspace,
			swapped: true,
			cloned: false,
			parked: `home:${user.id}`,
		});
	});

	it("clones a private repository with the token, and keeps the token nowhere", async () => {
		const { user, headers } = await userWithKey();
		const res = await swap(headers, { repo: PRIVATE_REPO, ref: "main", token: env.GIT_SERVER_TOKEN });
		const text = await res.text();
		expect(res.status, text).toBe(200);
		expect(text).not.toContain(env.GIT_SERVER_TOKEN);
		const body = (JSON.parse(text) as Swapped).attached;
		expect(await workspaceObject(env, body.active.workspace).tree(false)).toEqual(["CHANGELOG.md", "README.md", "plans/q3.md"]);
		const stored = await rows(user.id);
		expect(stored).toHaveLength(1);
		expect(stored[0]).toMatchObject({ repo: PRIVATE_REPO, ref: "main", active: 1 });
		expect(JSON.stringify(stored)).not.toContain(env.GIT_SERVER_TOKEN);
		const config = await gitConfig(body.active.workspace);
		expect(config).toContain(`url = ${PRIVATE_REPO}`);
		expect(config).not.toContain(env.GIT_SERVER_TOKEN);
	});

	it("answers 502 for a refused token, without the token, and changes nothing", async () => {
		const { user, headers } = await userWithKey();
		const wrong = `${env.GIT_SERVER_TOKEN}-wrong`;
		const res = await swap(headers, { repo: PRIVATE_REPO, token: wrong });
		const text = await res.text();
		expect(res.status).toBe(502);
		expect(JSON.parse(text)).toEqual({ detail: "The repository refused the token" });
		expect(text).not.toContain(wrong);
		expect(text).not.toContain(btoa(`x-access-token:${wrong}`));

		const none = await swap(headers, { repo: PRIVATE_REPO });
		expect(none.status).toBe(502);
		expect(await none.json()).toEqual({ detail: "The repository needs a token" });
		expect(await attached(headers)).toEqual({ active: home(user.id), parked: [] });
		expect(await rows(user.id)).toEqual([]);
	});

	it("answers 502 for a missing ref or an address that is no repository", async () => {
		const { headers } = await userWithKey();
		const ref = await swap(headers, { repo: PUBLIC_REPO, ref: "no-such-branch" });
		expect(ref.status).toBe(502);
		expect(await ref.json()).toEqual({ detail: expect.stringContaining("no-such-branch") });
		const missing = await swap(headers, { repo: `${env.GIT_SERVER_URL}/public/absent.git` });
		expect(missing.status).toBe(502);
		expect(await missing.json()).toEqual({ detail: expect.any(String) });
	});
});

describe("swap refuses addresses the outbound guard refuses", () => {
	it.each([
		["file:///etc/passwd", "repo must be an https URL"],
		["ftp://example.com/repo.git", "repo must be an https URL"],
		["not a url", "repo must be an https URL"],
		["https://user:secret@example.com/repo.git", "repo must not carry credentials; send the token as `token`"],
		["http://169.254.169.254/latest/meta-data.git", "repo is not allowed: cloud metadata endpoints are never allowed"],
	])("%s → 422", async (repo, msg) => {
		const { user, headers } = await userWithKey();
		const res = await swap(headers, { repo });
		expect(res.status).toBe(422);
		expect(await res.json()).toEqual({ detail: [{ loc: ["body", "repo"], msg, type: "value_error" }] });
		expect(await rows(user.id)).toEqual([]);
	});

	it("refuses a ref that is not a branch name", async () => {
		const { headers } = await userWithKey();
		const res = await swap(headers, { repo: PUBLIC_REPO, ref: "../../etc" });
		expect(res.status).toBe(422);
	});

	it("stops a redirect to a refused address (502), so the clone never reaches it", async () => {
		const { user, headers } = await userWithKey();
		const target = encodeURIComponent("http://169.254.169.254/repo.git");
		const res = await swap(headers, { repo: `${env.GIT_SERVER_URL}/redirect/${target}` });
		expect(res.status).toBe(502);
		expect(await res.json()).toEqual({ detail: "The repository address is not allowed (cloud metadata endpoints are never allowed)" });
		expect(await rows(user.id)).toEqual([]);
	});

	it("refuses http and private addresses where the deployment does not allow private targets", async () => {
		const { headers } = await userWithKey();
		const strict = { ...env, OUTBOUND_ALLOW_PRIVATE: "false" };
		const send = async (repo: string) => {
			const ctx = createExecutionContext();
			const request = new Request("https://gateway.test/agent/api/workspace/swap", {
				method: "POST",
				headers: { ...headers, "content-type": "application/json" },
				body: JSON.stringify({ repo }),
			});
			const res = await app.fetch(request, strict, ctx);
			await waitOnExecutionContext(ctx);
			return res;
		};
		const http = await send(PUBLIC_REPO);
		expect(http.status).toBe(422);
		expect(await http.json()).toEqual({ detail: [{ loc: ["body", "repo"], msg: "repo must be an https URL", type: "value_error" }] });
		const loopback = await send("https://127.0.0.1/public/notes.git");
		expect(loopback.status).toBe(422);
		expect(await loopback.json()).toEqual({
			detail: [{ loc: ["body", "repo"], msg: "repo is not allowed: loopback target 127.0.0.1 is not allowed", type: "value_error" }],
		});
	});
});
