/**
 * A workspace is a real repository: the git CLI clones it through the gateway's read-only
 * export and sees the files and history the API shows. And `swap` attaches a repository from a
 * real git host (`git http-backend`), which the export then serves.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { api, gateway, newAccount } from "./client";

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), "meetbot-clone-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The git CLI with no user configuration and no prompts: a failure fails, it never waits. */
async function git(args: string[], cwd = scratch): Promise<{ ok: boolean; stdout: string; stderr: string }> {
	try {
		const { stdout, stderr } = await run("git", args, {
			cwd,
			env: { PATH: process.env.PATH ?? "", HOME: scratch, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", LANG: "C" },
		});
		return { ok: true, stdout, stderr };
	} catch (err) {
		const failed = err as { stdout?: string; stderr?: string };
		return { ok: false, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
	}
}

const exportUrl = (base = gateway()) => `${base}/agent/api/workspace/repo.git`;
const withKey = (key: string) => exportUrl().replace("http://", `http://x:${encodeURIComponent(key)}@`);
let clones = 0;
const target = () => path.join(scratch, `clone-${++clones}`);

interface Commit {
	sha: string;
	msg: string;
	author: string;
}

/** What the API says: every file (dot-paths too) and the commits, newest first. */
async function apiView(key: string) {
	const tree = await api<{ files: string[] }>("GET", "/agent/api/workspace/tree?hidden=true", { key });
	const log = await api<{ commits: Commit[] }>("GET", "/agent/api/workspace/git", { key });
	expect(tree.status).toBe(200);
	expect(log.status).toBe(200);
	return { files: tree.body.files, commits: log.body.commits.map((c) => ({ sha: c.sha, msg: c.msg, author: c.author })) };
}

/** What the clone says: its tracked files and its log. */
async function cloneView(dir: string) {
	const files = (await git(["ls-files"], dir)).stdout.split("\n").filter(Boolean).sort();
	const log = (await git(["log", "--format=%H%x09%an%x09%s"], dir)).stdout.split("\n").filter(Boolean);
	const commits = log.map((line) => {
		const [sha = "", author = "", msg = ""] = line.split("\t");
		return { sha, msg, author };
	});
	return { files, commits };
}

describe("git clone of a workspace", () => {
	it("clones with the key in a header and as the Basic password, and shows what the API shows", async () => {
		const { key } = await newAccount();
		const init = await api("POST", "/agent/api/workspace/init", { key });
		expect(init.status).toBe(201);
		const expected = await apiView(key);
		expect(expected.files).toContain("CLAUDE.md");
		expect(expected.commits).toHaveLength(1);

		const byHeader = target();
		const header = await git(["-c", `http.extraHeader=X-API-Key: ${key}`, "clone", exportUrl(), byHeader]);
		expect(header.ok, header.stderr).toBe(true);
		expect(await cloneView(byHeader)).toEqual(expected);
		expect((await git(["rev-parse", "--abbrev-ref", "HEAD"], byHeader)).stdout.trim()).toBe("main");
		expect((await git(["fsck", "--strict"], byHeader)).ok).toBe(true);

		const byBasic = target();
		const basic = await git(["clone", withKey(key), byBasic]);
		expect(basic.ok, basic.stderr).toBe(true);
		expect(await cloneView(byBasic)).toEqual(expected);
	});

	it("clones an uninitialized workspace as an empty repository", async () => {
		const { key } = await newAccount();
		const dir = target();
		const clone = await git(["clone", withKey(key), dir]);
		expect(clone.ok, clone.stderr).toBe(true);
		expect(clone.stderr).toContain("You appear to have cloned an empty repository");
		expect((await apiView(key)).files).toEqual([]);
	});

	it("refuses a wrong key with 401, in a header or as the password", async () => {
		const { key } = await newAccount();
		await api("POST", "/agent/api/workspace/init", { key });
		const wrong = `${key}x`;
		const basic = await git(["clone", withKey(wrong), target()]);
		expect(basic.ok).toBe(false);
		expect(basic.stderr).toContain("Authentication failed");
		const header = await git(["-c", `http.extraHeader=X-API-Key: ${wrong}`, "clone", exportUrl(), target()]);
		expect(header.ok).toBe(false);
		expect(header.stderr).toMatch(/could not read Username|Authentication failed/);
		const res = await fetch(`${exportUrl()}/info/refs?service=git-upload-pack`, { headers: { "X-API-Key": wrong } });
		expect(res.status).toBe(401);
		expect(res.headers.get("www-authenticate")).toBe('Basic realm="workspace"');
	});

	it("serves a repository attached with swap, cloned from a git host", async () => {
		const { key } = await newAccount();
		const repo = `${inject("gitServerUrl")}/private/plans.git`;
		const swap = await api<{ repo: string; attached: { active: { repo: string } } }>("POST", "/agent/api/workspace/swap", {
			key,
			json: { repo, token: inject("gitServerToken") },
		});
		expect(swap.status).toBe(200);
		expect(JSON.stringify(swap.body)).not.toContain(inject("gitServerToken"));
		expect(swap.body.repo).toBe(repo);
		expect(swap.body.attached.active.repo).toBe(repo);

		const dir = target();
		const clone = await git(["clone", withKey(key), dir]);
		expect(clone.ok, clone.stderr).toBe(true);
		const view = await cloneView(dir);
		expect(view.files).toEqual(["CHANGELOG.md", "README.md", "plans/q3.md"]);
		expect(view.files).toEqual((await apiView(key)).files);
		expect(view.commits.map((c) => c.msg)).toEqual(["fixture"]);
		// The attached clone is shallow, and so is a clone of it: complete as far as it goes.
		expect((await git(["rev-parse", "--is-shallow-repository"], dir)).stdout.trim()).toBe("true");
		expect((await git(["fsck"], dir)).ok).toBe(true);
	});
});
