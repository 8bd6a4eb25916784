import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Workspace } from "../../../durable-objects/workspace";
import type { SqlFs } from "../../../durable-objects/workspace/fs";
import { WORKSPACE_STORAGE } from "../../../durable-objects/workspace/storage";
import { workspaceObject } from "../../../src/objects";

const author = { name: "Ada Lovelace", email: "ada@example.com" };
const fresh = () => workspaceObject(env, `test:${crypto.randomUUID()}`);

describe("a workspace is a git repository in its object's storage", () => {
	it("seeds once: init commits the seed files by the user, a second init changes nothing", async () => {
		const ws = fresh();
		expect(await ws.init("home:1", author)).toEqual({ workspace: "home:1", seeded: true, already_initialized: false });
		expect(await ws.init("home:1", author)).toEqual({ workspace: "home:1", seeded: false, already_initialized: true });
		const summary = await ws.summary(author.email, 10);
		expect(summary.commits).toHaveLength(1);
		expect(summary.commits[0]).toMatchObject({ msg: "seed", author: "Ada Lovelace", kind: "you" });
		expect(summary.commits[0]?.files).toContain("agents/meeting.md");
		expect(summary.changes).toEqual([]);
		expect(summary.kg_findings).toEqual([]);
		const tree = await ws.tree(false);
		for (const path of [
			"CLAUDE.md",
			"README.md",
			"onboarding.md",
			"agents/meeting.md",
			"kg/index.md",
			"kg/log.md",
			"kg/entities/person/index.md",
			"kg/entities/company/index.md",
			"kg/entities/product/index.md",
			"kg/entities/meeting/index.md",
			"routines/README.md",
		]) {
			expect(tree).toContain(path);
		}
		expect(tree.some((p) => p.startsWith("skills/"))).toBe(true);
		expect(tree.some((p) => p.startsWith("views/"))).toBe(true);
		const meeting = await ws.read("agents/meeting.md");
		expect(meeting?.content).toMatch(
			/^---\nenabled: true\nmodel:\ncadence_segments: 4\ncard_kinds: person,company,product,action_item\nwrite_meeting_doc: true\n---/,
		);
		expect((await ws.read(".gitignore"))?.content).toContain("uploads/");
	});

	it("commits writes and removals as one commit, reads them back, and commits nothing when nothing changed", async () => {
		const ws = fresh();
		await ws.init("home:2", author);
		const first = await ws.commit({
			changes: [
				{ path: "notes/a.md", content: "alpha" },
				{ path: "README.md", content: null },
			],
			message: "notes",
			author,
			by: "agent",
		});
		expect(first).toMatchObject({ ok: true, files: ["README.md", "notes/a.md"], routinesTouched: false });
		expect(first.ok && first.sha).toMatch(/^[0-9a-f]{40}$/);
		expect(await ws.read("notes/a.md")).toEqual({ path: "notes/a.md", content: "alpha" });
		expect(await ws.read("README.md")).toBeNull();
		const again = await ws.commit({ changes: [{ path: "notes/a.md", content: "alpha" }], message: "same", author, by: "agent" });
		expect(again).toMatchObject({ ok: true, sha: null, files: [] });
		const summary = await ws.summary("someone-else@example.com", 10);
		expect(summary.commits.map((c) => c.msg)).toEqual(["notes", "seed"]);
		expect(summary.commits[0]).toMatchObject({ kind: "member", files: ["README.md", "notes/a.md"] });
	});

	it("keeps a file larger than one storage row (chunked) intact through commit and read", async () => {
		const ws = fresh();
		const line = "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ\n";
		const big = `${line.repeat(Math.ceil(4_500_000 / line.length))}end\n`;
		expect(big.length).toBeGreaterThan(4_000_000);
		const outcome = await ws.commit({ changes: [{ path: "data/big.txt", content: big }], message: "big", author, by: "platform" });
		expect(outcome).toMatchObject({ ok: true, files: ["data/big.txt"] });
		const back = await ws.read("data/big.txt");
		expect(back?.content.length).toBe(big.length);
		expect(back?.content === big).toBe(true);
		const chunks = await runInDurableObject(ws, (_instance, state) =>
			state.storage.sql
				.exec<{ n: number }>(`SELECT count(*) AS n FROM ${WORKSPACE_STORAGE.tables.fsChunks} WHERE path = '/data/big.txt'`)
				.one(),
		);
		expect(chunks.n).toBeGreaterThan(2);
		// Seeded first, because the workspace was empty.
		const summary = await ws.summary(author.email, 10);
		expect(summary.commits.map((c) => c.msg)).toEqual(["big", "seed"]);
		expect(summary.changes).toEqual([]);
		// Emptied (as before a clone replaces it), nothing of the file or the repository is left.
		await runInDurableObject(ws, (instance: Workspace) => {
			(instance as unknown as { files: SqlFs }).files.clear();
		});
		expect(await ws.tree(true)).toEqual([]);
		expect((await ws.summary(author.email, 5)).commits).toEqual([]);
	});

	it("reports routines touched and the kg/ findings after a commit", async () => {
		const ws = fresh();
		const outcome = await ws.commit({
			changes: [
				{ path: "routines/daily.md", content: "---\nenabled: true\ncron: 0 9 * * *\nprompt: hi\n---\n" },
				{ path: "kg/concepts/untyped.md", content: "# No frontmatter\n" },
				{ path: "kg/concepts/empty-type.md", content: "---\ntype:\ntitle: x\n---\n" },
				{ path: "kg/concepts/ok.md", content: "---\ntype: concept\n---\n" },
			],
			message: "kg",
			author,
			by: "agent",
		});
		expect(outcome).toMatchObject({ ok: true, routinesTouched: true });
		const findings = outcome.ok ? outcome.findings.map((f) => f.path) : [];
		expect(findings).toEqual(["kg/concepts/empty-type.md", "kg/concepts/untyped.md"]);
		expect((await ws.summary(author.email, 5)).kg_findings.map((f) => f.path)).toEqual(findings);
	});

	it("refuses an agent's write to a policy path or outside the workspace, and lands nothing of the request", async () => {
		const ws = fresh();
		await ws.init("home:3", author);
		for (const bad of ["policy/members.json", ".gitignore", "../escape.md", "/etc/passwd", ".git/config", "a/.git/x", "uploads/x.bin"]) {
			const outcome = await ws.commit({
				changes: [
					{ path: "notes/ok.md", content: "fine" },
					{ path: bad, content: "evil" },
				],
				message: "try",
				author,
				by: "agent",
			});
			expect(outcome.ok, bad).toBe(false);
			expect(!outcome.ok && outcome.violations.length, bad).toBe(1);
		}
		expect(await ws.read("notes/ok.md")).toBeNull();
		expect(await ws.read("policy/members.json")).toBeNull();
		expect((await ws.summary(author.email, 10)).commits.map((c) => c.msg)).toEqual(["seed"]);
		const platform = await ws.commit({
			changes: [{ path: "policy/members.json", content: "[]" }],
			message: "members",
			author,
			by: "platform",
		});
		expect(platform).toMatchObject({ ok: true, files: ["policy/members.json"] });
	});

	it("refuses a write over a directory or under a file, before applying any change of the request", async () => {
		const ws = fresh();
		await ws.init("home:4", author);
		const outcome = await ws.commit({
			changes: [
				{ path: "notes/first.md", content: "applied?" },
				{ path: "kg", content: "a file where a directory is" },
				{ path: "README.md/inner.md", content: "under a file" },
			],
			message: "clash",
			author,
			by: "platform",
		});
		expect(outcome).toEqual({ ok: false, violations: ["kg: is a directory", "README.md/inner.md: README.md is a file, not a directory"] });
		expect(await ws.read("notes/first.md")).toBeNull();
		const summary = await ws.summary(author.email, 10);
		expect(summary.changes).toEqual([]);
		expect(summary.commits.map((c) => c.msg)).toEqual(["seed"]);
	});

	it("searches lines case-insensitively with a limit", async () => {
		const ws = fresh();
		await ws.commit({ changes: [{ path: "notes/s.md", content: "one Needle\ntwo\nthree needle\n" }], message: "s", author, by: "agent" });
		expect(await ws.search("NEEDLE", 10)).toEqual([
			{ path: "notes/s.md", line: 1, text: "one Needle" },
			{ path: "notes/s.md", line: 3, text: "three needle" },
		]);
		expect(await ws.search("needle", 1)).toHaveLength(1);
	});
});
