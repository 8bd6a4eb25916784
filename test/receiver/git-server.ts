/**
 * A real git server for the tests of `swap`: git's own `git http-backend` (CGI) over bare
 * repositories built with the git CLI in a temporary directory. Repositories under `/private/`
 * answer only HTTP Basic with the known token as the password, so a test can see the token
 * used (and refused when wrong). `/redirect/<address>` answers a redirect to any address, so a
 * test can see a redirect to a refused target stopped. Under `/bomb/` are repositories that
 * unpack to far more than they pack to (git-bombs.ts), built here at start.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { type BombContent, GIT_BOMBS } from "./git-bombs.ts";
import { listenLocally, readBody } from "./node-http.ts";

/** The fixture repositories: path (under the server root) → files of its one commit on `main`. */
export const GIT_FIXTURES = {
	"public/notes.git": { "README.md": "# Notes\n\nA public fixture repository.\n", "docs/guide.md": "# Guide\n" },
	"private/plans.git": { "README.md": "# Plans\n", "plans/q3.md": "Ship the workspace export.\n" },
} as const;

const HTTP_BACKEND = "/usr/lib/git-core/git-http-backend";

export interface GitServer {
	url: string;
	/** Where the bare repositories are (a bench reads a pack's size there). */
	root: string;
	/** The password `/private/` repositories accept (any user name). */
	token: string;
	close(): Promise<void>;
}

/** `bombs`: more repositories like GIT_BOMBS (a bench's larger one). */
export async function startGitServer(
	token = `ghp_fixture_${Math.random().toString(36).slice(2, 12)}`,
	bombs: Record<string, Record<string, BombContent>> = {},
): Promise<GitServer> {
	const root = mkdtempSync(path.join(os.tmpdir(), "meetbot-git-"));
	for (const [name, files] of Object.entries(GIT_FIXTURES)) buildBareRepository(root, name, files);
	for (const [name, files] of Object.entries({ ...GIT_BOMBS, ...bombs })) buildBombRepository(root, name, files);

	const server = createServer(async (req, res) => {
		const url = new URL(req.url ?? "/", "http://git.test");
		const redirect = url.pathname.match(/^\/redirect\/(.+)$/);
		if (redirect?.[1]) {
			res.writeHead(302, { location: decodeURIComponent(redirect[1]) }).end();
			return;
		}
		if (url.pathname.startsWith("/private/") && !authorized(req.headers.authorization, token)) {
			res.writeHead(401, { "www-authenticate": 'Basic realm="fixtures"', "content-type": "text/plain" }).end("authentication required");
			return;
		}
		const body = await readBody(req);
		const cgi = spawn(HTTP_BACKEND, [], {
			env: {
				GIT_PROJECT_ROOT: root,
				GIT_HTTP_EXPORT_ALL: "1",
				PATH_INFO: url.pathname,
				QUERY_STRING: url.search.slice(1),
				REQUEST_METHOD: req.method ?? "GET",
				CONTENT_TYPE: req.headers["content-type"] ?? "",
				CONTENT_LENGTH: String(body.length),
				HTTP_GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
				HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
				REMOTE_ADDR: "127.0.0.1",
				REMOTE_USER: url.pathname.startsWith("/private/") ? "fixture" : "",
			},
		});
		const out: Buffer[] = [];
		// The backend may exit without reading its input, and a client may hang up (a clone past its
		// byte cap): neither is the server's failure.
		cgi.stdin.on("error", () => undefined);
		res.on("error", () => undefined);
		cgi.on("error", () => res.writeHead(500).end());
		cgi.stdout.on("data", (chunk: Buffer) => out.push(chunk));
		cgi.stdin.end(body);
		cgi.on("close", () => {
			const { status, headers, content } = parseCgi(Buffer.concat(out));
			if (res.destroyed) return;
			res.writeHead(status, headers).end(content);
		});
	});
	const listening = await listenLocally(server);
	return {
		url: listening.url,
		root,
		token,
		close: async () => {
			await listening.close();
			rmSync(root, { recursive: true, force: true });
		},
	};
}

function authorized(header: string | undefined, token: string): boolean {
	if (!header?.startsWith("Basic ")) return false;
	const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
	return decoded.slice(decoded.indexOf(":") + 1) === token;
}

function withoutGitLocation(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const { GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_COMMON_DIR, ...rest } = env;
	return rest;
}

/** git in `cwd`, with a fixed author. */
function runGit(cwd: string, ...args: string[]) {
	return execFileSync("git", args, {
		cwd,
		stdio: "pipe",
		env: {
			// A git hook or `rebase --exec` exports GIT_DIR: the fixture must never reach the enclosing repository.
			...withoutGitLocation(process.env),
			GIT_AUTHOR_NAME: "Fixture",
			GIT_AUTHOR_EMAIL: "fixture@example.com",
			GIT_COMMITTER_NAME: "Fixture",
			GIT_COMMITTER_EMAIL: "fixture@example.com",
		},
	});
}

function writeFiles(work: string, files: Record<string, BombContent>) {
	for (const [file, content] of Object.entries(files)) {
		mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
		if (typeof content === "string") writeFileSync(path.join(work, file), content);
		else {
			const bytes = Buffer.alloc(content.zeros);
			if (content.last !== undefined) bytes[bytes.length - 1] = content.last;
			writeFileSync(path.join(work, file), bytes);
		}
	}
}

function buildBareRepository(root: string, name: string, files: Record<string, string>) {
	const work = mkdtempSync(path.join(os.tmpdir(), "meetbot-git-work-"));
	runGit(work, "init", "-q", "-b", "main");
	writeFiles(work, files);
	runGit(work, "add", "-A");
	runGit(work, "commit", "-q", "-m", "older history a shallow clone leaves out");
	writeFileSync(path.join(work, "CHANGELOG.md"), "first release\n");
	runGit(work, "add", "-A");
	runGit(work, "commit", "-q", "-m", "fixture");
	// A second branch, for a swap at a ref other than main.
	runGit(work, "checkout", "-q", "-b", "release");
	writeFileSync(path.join(work, "RELEASE.md"), "release branch\n");
	runGit(work, "add", "-A");
	runGit(work, "commit", "-q", "-m", "release notes");
	runGit(work, "checkout", "-q", "main");
	const bare = path.join(root, name);
	mkdirSync(path.dirname(bare), { recursive: true });
	runGit(root, "clone", "-q", "--bare", work, bare);
	rmSync(work, { recursive: true, force: true });
}

/** One commit of `files`, packed with git's deltas, so the server sends them as it would any repository. */
function buildBombRepository(root: string, name: string, files: Record<string, BombContent>) {
	const work = mkdtempSync(path.join(os.tmpdir(), "meetbot-git-bomb-"));
	runGit(work, "init", "-q", "-b", "main");
	writeFiles(work, files);
	runGit(work, "add", "-A");
	runGit(work, "commit", "-q", "-m", "bomb");
	const bare = path.join(root, name);
	mkdirSync(path.dirname(bare), { recursive: true });
	runGit(root, "clone", "-q", "--bare", work, bare);
	runGit(bare, "repack", "-adfq");
	rmSync(work, { recursive: true, force: true });
}

/** A CGI answer: header lines (with `Status:`), a blank line, the body. */
function parseCgi(raw: Buffer): { status: number; headers: Record<string, string>; content: Buffer } {
	let end = raw.indexOf("\r\n\r\n");
	let gap = 4;
	if (end < 0) {
		end = raw.indexOf("\n\n");
		gap = 2;
	}
	if (end < 0) return { status: 502, headers: { "content-type": "text/plain" }, content: Buffer.from("bad CGI answer") };
	const headers: Record<string, string> = {};
	let status = 200;
	for (const line of raw.subarray(0, end).toString("latin1").split(/\r?\n/)) {
		const colon = line.indexOf(":");
		if (colon < 0) continue;
		const name = line.slice(0, colon).trim();
		const value = line.slice(colon + 1).trim();
		if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
		else headers[name] = value;
	}
	return { status, headers, content: raw.subarray(end + gap) };
}
