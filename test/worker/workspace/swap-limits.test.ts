/**
 * `swap` against repositories that cost far more unpacked than packed (test/receiver/git-bombs.ts,
 * served by `git http-backend`), under the small clone limits vitest.config.ts sets: each is
 * refused with 413 naming the limit, from what the pack declares, and nothing changes.
 */
import { env, runInDurableObject } from "cloudflare:test";
import git, { type PromiseFsClient } from "isomorphic-git";
import { describe, expect, it } from "vitest";
import type { Workspace } from "../../../durable-objects/workspace";
import { type CloneOutcome, cloneRepository, guardedHttp } from "../../../durable-objects/workspace/clone";
import { checkOutWithin } from "../../../durable-objects/workspace/clone-checkout";
import { type CloneLimits, type CloneRefusal, cloneLimits } from "../../../durable-objects/workspace/clone-limits";
import type { SqlFs } from "../../../durable-objects/workspace/fs";
import { UploadPackScan } from "../../../durable-objects/workspace/pack-scan";
import { workspaceObject } from "../../../src/objects";
import { call, json, userWithKey } from "../support";

const PUBLIC_REPO = `${env.GIT_SERVER_URL}/public/notes.git`;
const bomb = (name: string) => `${env.GIT_SERVER_URL}/bomb/${name}.git`;

interface Attached {
	active: { workspace: string; kind: string; repo: string | null };
	parked: { workspace: string }[];
}

const swap = (headers: Record<string, string>, body: Record<string, unknown>) =>
	call("POST", "/agent/api/workspace/swap", { headers, json: body });
const attached = async (headers: Record<string, string>) => json<Attached>(await call("GET", "/agent/api/workspace/attached", { headers }));

interface RepoInternals {
	repo: { options: { fs: PromiseFsClient; dir: string } };
	files: SqlFs;
}

/** Clones `repo` straight into a fresh Workspace object; answers the outcome and what is left in it. */
async function cloneInto(repo: string, limits: CloneLimits = cloneLimits(env)): Promise<{ outcome: CloneOutcome; left: string[] }> {
	const stub = workspaceObject(env, `repo:0:${crypto.randomUUID()}`);
	return runInDurableObject(stub, async (instance: Workspace) => {
		const { repo: local, files } = instance as unknown as RepoInternals;
		const outcome = await cloneRepository(
			{ ...local.options, empty: () => files.clear() },
			{ repo, ref: "main", token: null },
			{ allowPrivate: true },
			limits,
		);
		return { outcome, left: await local.options.fs.promises.readdir("/") };
	});
}

describe("swap to a repository past the clone limits", () => {
	it.each([
		["large-file", "The repository has a file of 3 MB unpacked, over the limit of 1 MB per file"],
		["large-total", "The repository unpacks to more than 2 MB"],
		["many-objects", "The repository has 253 objects, over the limit of 200"],
		["delta", "The repository has a file of 1.1 MB unpacked, over the limit of 1 MB per file"],
		["wide-tree", "The repository has more than 200 files and directories, over the limit"],
		["wide-bytes", "The repository's files take more than 2 MB checked out"],
	])("%s: 413 naming the limit, and the home workspace stays active", async (name, detail) => {
		const { user, headers } = await userWithKey();
		const res = await swap(headers, { repo: bomb(name) });
		expect(res.status, await res.clone().text()).toBe(413);
		expect(await res.json()).toEqual({ detail });
		expect(await attached(headers)).toEqual({
			active: { workspace: `home:${user.id}`, kind: "home", repo: null, ref: null },
			parked: [],
		});
		const { results } = await env.DB.prepare("SELECT * FROM agent_workspaces WHERE user_id = ?").bind(user.id).all();
		expect(results).toEqual([]);
	});

	it("leaves an attached repository active and as it was", async () => {
		const { headers } = await userWithKey();
		const before = (await json<{ attached: Attached }>(await swap(headers, { repo: PUBLIC_REPO }))).attached;
		const tree = await workspaceObject(env, before.active.workspace).tree(true);
		const res = await swap(headers, { repo: bomb("large-file") });
		expect(res.status).toBe(413);
		expect(await attached(headers)).toEqual(before);
		expect(await workspaceObject(env, before.active.workspace).tree(true)).toEqual(tree);
	});
});

describe("the pack is judged by what it declares", () => {
	it("refuses a file over the per-file limit from its header, having inflated only the commit and tree", async () => {
		const { outcome, left } = await cloneInto(bomb("large-file"));
		expect(outcome).toMatchObject({ ok: false, status: 413, detail: expect.stringContaining("3 MB") });
		if (outcome.ok) return;
		// The 3 MB blob follows a commit and a tree of a few hundred bytes: none of it was inflated.
		expect(outcome.pack).toMatchObject({ objects: 3, deltas: 0 });
		expect(outcome.pack?.inflatedBytes).toBeLessThan(1024);
		expect(left).toEqual([]);
	});

	it("refuses a delta from the result size in its first bytes, having inflated only its base", async () => {
		const { outcome } = await cloneInto(bomb("delta"));
		expect(outcome).toMatchObject({ ok: false, status: 413, detail: expect.stringContaining("1.1 MB") });
		if (outcome.ok) return;
		expect(outcome.pack?.deltas).toBe(1);
		// The 600 KB base and a few hundred bytes of commit, tree and delta head; not the 1.1 MB.
		expect(outcome.pack?.inflatedBytes).toBeGreaterThanOrEqual(600 * 1024);
		expect(outcome.pack?.inflatedBytes).toBeLessThan(601 * 1024);
	});

	it("refuses a pack declaring more objects than allowed before reading any", async () => {
		const { outcome } = await cloneInto(bomb("many-objects"));
		expect(outcome).toMatchObject({ ok: false, status: 413 });
		if (outcome.ok) return;
		expect(outcome.pack).toEqual({ objects: 0, deltas: 0, unpackedBytes: 0, inflatedBytes: 0 });
	});

	it("clones the same repositories under larger limits", async () => {
		const roomy = { ...cloneLimits(env), maxUnpackedBytes: 8 << 20, maxFileBytes: 4 << 20, maxObjects: 300, maxFiles: 300 };
		for (const name of ["large-file", "delta", "many-objects", "wide-tree"]) {
			const { outcome, left } = await cloneInto(bomb(name), roomy);
			expect(outcome, name).toEqual({ ok: true });
			expect(left.length, name).toBeGreaterThan(1);
		}
	});
});

/** git-upload-pack's answer for `main` of `repo`, as git sends it (side band 64k, deltas by offset). */
async function uploadPackAnswer(repo: string): Promise<Uint8Array> {
	const refs = await (await fetch(`${repo}/info/refs?service=git-upload-pack`)).text();
	const oid = /([0-9a-f]{40}) refs\/heads\/main/.exec(refs)?.[1];
	const line = (text: string) => `${(text.length + 4).toString(16).padStart(4, "0")}${text}`;
	const res = await fetch(`${repo}/git-upload-pack`, {
		method: "POST",
		headers: { "content-type": "application/x-git-upload-pack-request" },
		body: `${line(`want ${oid} side-band-64k ofs-delta\n`)}0000${line("done\n")}`,
	});
	return new Uint8Array(await res.arrayBuffer());
}

describe("the pack scan", () => {
	it("reads a pack alike whatever its chunks, so an object split across them is still judged whole", async () => {
		const answer = await uploadPackAnswer(bomb("delta"));
		const limits = { maxUnpackedBytes: 8 << 20, maxFileBytes: 4 << 20, maxObjects: 300 };
		const tallies = [1, 7, 4096, answer.byteLength].map((size) => {
			const scan = new UploadPackScan(limits);
			for (let at = 0; at < answer.byteLength; at += size) scan.push(answer.subarray(at, at + size));
			return scan.tally;
		});
		// The commit, the tree, the 600 KB base and the delta that makes 1.1 MB of it.
		const [first, ...others] = tallies;
		expect(first).toMatchObject({ objects: 4, deltas: 1 });
		expect(first?.unpackedBytes).toBeGreaterThan(1700 * 1024);
		expect(first?.unpackedBytes).toBeLessThan(1701 * 1024);
		for (const tally of others) expect(tally).toEqual(first);
	});
});

describe("the clone's limits", () => {
	it("stops a clone past its byte cap and leaves the workspace empty", async () => {
		const { outcome, left } = await cloneInto(PUBLIC_REPO, { ...cloneLimits(env), maxBytes: 300 });
		expect(outcome).toMatchObject({ ok: false, status: 413, detail: "The repository is larger than 300 bytes" });
		expect(left).toEqual([]);
	});

	it("stops a checkout past the clone's deadline", async () => {
		const stub = workspaceObject(env, `repo:0:${crypto.randomUUID()}`);
		const { message, files } = await runInDurableObject(stub, async (instance: Workspace) => {
			const { repo, files } = instance as unknown as RepoInternals;
			const limits = cloneLimits(env);
			const refuse = (why: CloneRefusal) => why;
			const http = guardedHttp({ allowPrivate: true }, limits, AbortSignal.timeout(10_000), refuse);
			await git.clone({ ...repo.options, http, url: PUBLIC_REPO, ref: "main", singleBranch: true, depth: 1, noCheckout: true });
			const stopped = await checkOutWithin(repo.options, "main", limits, Date.now() - 1, refuse, () => null).catch((e: Error) => e);
			return {
				message: stopped instanceof Error ? stopped.message : "checked out",
				files: files.filesUnder("/").filter((p) => !p.startsWith(".git")),
			};
		});
		expect(message).toBe("The repository could not be cloned within 60 s");
		expect(files).toEqual([]);
	});
});
