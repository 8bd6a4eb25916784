import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, expectDocumented, json, userWithKey } from "../support";

const Init = z.object({ workspace: z.string(), seeded: z.boolean(), already_initialized: z.boolean() });
const Git = z.object({
	branch: z.string(),
	changes: z.array(z.string()),
	commits: z.array(
		z.object({
			sha: z.string(),
			msg: z.string(),
			when: z.string(),
			author: z.string(),
			kind: z.enum(["you", "member", "system"]),
			files: z.array(z.string()),
			ts: z.number(),
		}),
	),
	kg_findings: z.array(z.object({ path: z.string(), problem: z.string() })),
});

async function named(name: string) {
	const caller = await userWithKey();
	await env.DB.prepare("UPDATE users SET name = ? WHERE id = ?").bind(name, caller.user.id).run();
	return caller;
}

describe("workspace routes", () => {
	for (const prefix of ["/agent/api", "/agent"]) {
		it(`${prefix}: an uninitialized workspace is empty, then init seeds it once (201 both times)`, async () => {
			const { headers, user } = await userWithKey();
			expect(await json(await call("GET", `${prefix}/workspace/tree`, { headers }))).toEqual({ files: [] });
			expect(await json(await call("GET", `${prefix}/workspace/git`, { headers }))).toEqual({
				branch: "main",
				changes: [],
				commits: [],
				kg_findings: [],
			});
			const missing = await call("GET", `${prefix}/workspace/file?path=CLAUDE.md`, { headers });
			expect(missing.status).toBe(404);
			expect(await json(missing)).toEqual({ detail: "not found" });

			const first = await expectDocumented(Init, await call("POST", `${prefix}/workspace/init`, { headers }), 201);
			expect(first).toEqual({ workspace: `home:${user.id}`, seeded: true, already_initialized: false });
			const second = await expectDocumented(Init, await call("POST", `${prefix}/workspace/init`, { headers }), 201);
			expect(second).toEqual({ workspace: `home:${user.id}`, seeded: false, already_initialized: true });

			const file = await call("GET", `${prefix}/workspace/file?path=CLAUDE.md`, { headers });
			expect(file.status).toBe(200);
			const body = await json<{ path: string; content: string }>(file);
			expect(body.path).toBe("CLAUDE.md");
			expect(body.content).toContain("kg/");
		});
	}

	it("lists dot-paths only with hidden=true and never .git", async () => {
		const { headers } = await userWithKey();
		await call("POST", "/agent/api/workspace/init", { headers });
		const plain = await json<{ files: string[] }>(await call("GET", "/agent/api/workspace/tree", { headers }));
		expect(plain.files).toContain("CLAUDE.md");
		expect(plain.files).toContain("kg/index.md");
		expect(plain.files).not.toContain(".gitignore");
		expect(plain.files.some((p) => p.startsWith("."))).toBe(false);
		const hidden = await json<{ files: string[] }>(await call("GET", "/agent/api/workspace/tree?hidden=true", { headers }));
		expect(hidden.files).toContain(".gitignore");
		expect(hidden.files.some((p) => p === ".git" || p.startsWith(".git/"))).toBe(false);
		expect(hidden.files.length).toBe(plain.files.length + 1);
	});

	it("reads hidden as Python sends it (True/False, any case) and 1/0; anything else is 422", async () => {
		const { headers } = await userWithKey();
		await call("POST", "/agent/api/workspace/init", { headers });
		const tree = async (flag: string) => {
			const res = await call("GET", `/agent/workspace/tree?hidden=${flag}`, { headers });
			expect(res.status, flag).toBe(200);
			return (await json<{ files: string[] }>(res)).files;
		};
		for (const flag of ["True", "TRUE", "true", "1"]) expect(await tree(flag), flag).toContain(".gitignore");
		for (const flag of ["False", "FALSE", "false", "0"]) expect(await tree(flag), flag).not.toContain(".gitignore");
		for (const flag of ["yes", "", "truee"]) {
			const res = await call("GET", `/agent/workspace/tree?hidden=${flag}`, { headers });
			expect(res.status, flag).toBe(422);
			expect(JSON.stringify(await res.json())).toContain("hidden");
		}
	});

	it("refuses path traversal and .git with 400, and reads nothing", async () => {
		const { headers } = await userWithKey();
		await call("POST", "/agent/api/workspace/init", { headers });
		for (const path of [
			"../CLAUDE.md",
			"%2e%2e/CLAUDE.md",
			"kg/%2E%2E/../CLAUDE.md",
			"/CLAUDE.md",
			".git/config",
			".git/HEAD",
			"a\\..\\b",
			"%00CLAUDE.md",
			"",
		]) {
			const res = await call("GET", `/agent/api/workspace/file?path=${path}`, { headers });
			expect(res.status, path).toBe(400);
			const { detail } = await json<{ detail: string }>(res);
			expect(detail, path).toMatch(/^Invalid path: /);
		}
		const dotted = await call("GET", "/agent/api/workspace/file?path=./kg/../CLAUDE.md", { headers });
		expect(dotted.status).toBe(400);
	});

	it("git lists commits by the user (name and email from the users table), kind you, with their files", async () => {
		const { headers, user } = await named("Grace Hopper");
		await call("POST", "/agent/api/workspace/init", { headers });
		const git = await expectDocumented(Git, await call("GET", "/agent/api/workspace/git", { headers }));
		expect(git.branch).toBe("main");
		expect(git.changes).toEqual([]);
		expect(git.commits).toHaveLength(1);
		const [seed] = git.commits;
		expect(seed).toMatchObject({ msg: "seed", author: "Grace Hopper", kind: "you" });
		expect(seed?.files).toContain("CLAUDE.md");
		expect(seed?.sha).toMatch(/^[0-9a-f]{40}$/);
		expect(Math.abs((seed?.ts ?? 0) * 1000 - Date.now())).toBeLessThan(120_000);
		expect(new Date(seed?.when ?? "").getTime()).toBe((seed?.ts ?? 0) * 1000);
		// The stored author email is the user's (kind is judged against it).
		const stub = env.WORKSPACE.get(env.WORKSPACE.idFromName(`home:${user.id}`));
		expect((await stub.summary("not-the-user@example.com", 5)).commits[0]?.kind).toBe("member");
		expect((await stub.summary(user.email.toUpperCase(), 5)).commits[0]?.kind).toBe("you");
	});

	it("shows kg findings for a concept file without a type", async () => {
		const { headers, user } = await userWithKey();
		const stub = env.WORKSPACE.get(env.WORKSPACE.idFromName(`home:${user.id}`));
		await stub.commit({
			changes: [{ path: "kg/concepts/loose.md", content: "# Loose\n\nno frontmatter\n" }],
			message: "loose",
			author: { name: "u", email: user.email },
			by: "agent",
		});
		const git = await json<{ kg_findings: { path: string; problem: string }[] }>(
			await call("GET", "/agent/api/workspace/git", { headers }),
		);
		expect(git.kg_findings).toEqual([{ path: "kg/concepts/loose.md", problem: expect.stringContaining("frontmatter") }]);
	});
});

describe("workspace uploads", () => {
	const form = (...files: { name: string; bytes: Uint8Array }[]) => {
		const data = new FormData();
		for (const f of files) data.append("files", new File([f.bytes], f.name));
		return data;
	};

	it("stores each file in R2 under the workspace, lists it in the tree, and answers its path", async () => {
		const { headers, user } = await userWithKey();
		await call("POST", "/agent/api/workspace/init", { headers });
		const bytes = new TextEncoder().encode("minutes of the meeting");
		const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
		const big = new Uint8Array(2 * 1024 * 1024 + 17).fill(7);
		const res = await call("POST", "/agent/api/workspace/upload", {
			headers,
			body: form({ name: "../Notes 1.txt", bytes }, { name: "big.bin", bytes: big }),
		});
		expect(res.status, await res.clone().text()).toBe(200);
		const body = await json<{ files: { name: string; path: string }[] }>(res);
		expect(body.files[0]).toEqual({ name: "Notes_1.txt", path: `uploads/${digest.slice(0, 12)}-Notes_1.txt` });
		expect(body.files[1]?.path).toMatch(/^uploads\/[0-9a-f]{12}-big\.bin$/);
		// Stored in R2 under the workspace (uploads.test.ts reads them back through GET /workspace/file).
		const stored = (await env.WORKSPACE_FILES.list({ prefix: `home:${user.id}/` })).objects.map((o) => o.size).sort((a, b) => a - b);
		expect(stored).toEqual([bytes.byteLength, big.byteLength]);
		const read = await call("GET", `/agent/api/workspace/file?path=${body.files[0]?.path}`, { headers });
		expect(await json(read)).toEqual({ path: body.files[0]?.path, content: "minutes of the meeting" });
		const tree = await json<{ files: string[] }>(await call("GET", "/agent/api/workspace/tree", { headers }));
		expect(tree.files).toEqual(expect.arrayContaining(body.files.map((f) => f.path)));
		// Uploads stay out of git: nothing uncommitted, no commit for them.
		const git = await json<{ changes: string[]; commits: unknown[] }>(await call("GET", "/agent/api/workspace/git", { headers }));
		expect(git.changes).toEqual([]);
		expect(git.commits).toHaveLength(1);
	});

	it("answers 400 with no files and 413 for a file over 25 MiB, storing nothing", async () => {
		const { headers, user } = await userWithKey();
		const none = await call("POST", "/agent/api/workspace/upload", { headers, body: new FormData() });
		expect(none.status).toBe(400);
		expect((await json<{ detail: string }>(none)).detail).toMatch(/files/);
		const notForm = await call("POST", "/agent/api/workspace/upload", { headers, json: { files: [] } });
		expect(notForm.status).toBe(400);

		const small = { name: "ok.txt", bytes: new TextEncoder().encode("ok") };
		const huge = { name: "huge.bin", bytes: new Uint8Array(25 * 1024 * 1024 + 1) };
		const res = await call("POST", "/agent/api/workspace/upload", { headers, body: form(small, huge) });
		expect(res.status).toBe(413);
		expect((await json<{ detail: string }>(res)).detail).toMatch(/too large/);
		expect((await env.WORKSPACE_FILES.list({ prefix: `home:${user.id}/` })).objects).toEqual([]);
		expect(await json(await call("GET", "/agent/api/workspace/tree", { headers }))).toEqual({ files: [] });
	});
});
