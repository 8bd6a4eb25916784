/**
 * Workspace uploads (docs/workspace.md#uploads): streamed to R2 part by part, capped per user,
 * readable through GET /workspace/file and the agent's read_file, and deleted to free the quota.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { agentUser, bodyOf, chat, script, sent } from "../agent/helpers";
import { readAll } from "../agent/sse";
import { call, json, userWithKey } from "../support";

const MiB = 1024 * 1024;

const form = (...files: { name: string; bytes: Uint8Array; type?: string }[]) => {
	const data = new FormData();
	for (const f of files) data.append("files", new File([f.bytes], f.name, { type: f.type ?? "" }));
	return data;
};
const text = (s: string) => new TextEncoder().encode(s);

/** Calls the Worker with deployment settings changed for this request (the upload quota). */
async function withSettings(
	settings: Record<string, string>,
	method: string,
	path: string,
	headers: Record<string, string>,
	body?: BodyInit,
) {
	const ctx = createExecutionContext();
	const res = await worker.fetch(
		new Request(`https://gateway.test${path}`, { method, headers, body }),
		{ ...env, ...settings } as Env,
		ctx,
	);
	await waitOnExecutionContext(ctx);
	return res;
}

async function upload(headers: Record<string, string>, ...files: Parameters<typeof form>) {
	const res = await call("POST", "/agent/api/workspace/upload", { headers, body: form(...files) });
	expect(res.status, await res.clone().text()).toBe(200);
	return (await json<{ files: { name: string; path: string }[] }>(res)).files;
}

const objectsOf = async (userId: number) => (await env.WORKSPACE_FILES.list({ prefix: `home:${userId}/` })).objects.length;
const treeOf = async (headers: Record<string, string>) =>
	(await json<{ files: string[] }>(await call("GET", "/agent/workspace/tree", { headers }))).files;

const sha256 = async (bytes: Uint8Array) =>
	[...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

describe("reading uploads", () => {
	it("gives a text upload's text and a binary one's bytes as base64 through GET /workspace/file, also one stored in parts", async () => {
		const { headers } = await userWithKey();
		const notes = "Minutes: ship it — ✓ agreed\n";
		const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0xff, 0xfe]);
		// Over one 5 MiB part, with bytes that are no UTF-8: stored as a multipart upload.
		const large = new Uint8Array(11 * MiB + 3).map((_, i) => (i * 7919) % 251);
		const [t, b, l] = await upload(
			headers,
			{ name: "notes.md", bytes: text(notes), type: "text/markdown" },
			{ name: "logo.png", bytes: png, type: "image/png" },
			{ name: "large.bin", bytes: large },
		);
		expect(await json(await call("GET", `/agent/api/workspace/file?path=${t?.path}`, { headers }))).toEqual({
			path: t?.path,
			content: notes,
		});
		expect(await json(await call("GET", `/agent/workspace/file?path=${b?.path}`, { headers }))).toEqual({
			path: b?.path,
			content: btoa(String.fromCharCode(...png)),
			encoding: "base64",
		});
		const big = await json<{ content: string; encoding: string }>(await call("GET", `/agent/workspace/file?path=${l?.path}`, { headers }));
		expect(big.encoding).toBe("base64");
		expect(await sha256(fromBase64(big.content))).toBe(await sha256(large));
		expect(l?.path).toBe(`uploads/${(await sha256(large)).slice(0, 12)}-large.bin`);

		const absent = await call("GET", "/agent/workspace/file?path=uploads/000000000000-none.txt", { headers });
		expect(absent.status).toBe(404);
		expect(await json(absent)).toEqual({ detail: "not found" });
	});

	it("lets the agent's read_file read a text upload and say what a binary one is", async () => {
		const { headers } = await agentUser();
		const [t, b] = await upload(
			headers,
			{ name: "agenda.txt", bytes: text("1. budget\n2. hiring\n") },
			{ name: "photo.jpg", bytes: new Uint8Array([0xff, 0xd8, 0xff, 0x00, 0x10]), type: "image/jpeg" },
		);
		const marker = crypto.randomUUID();
		await script(marker, [
			{
				tool_calls: [
					{ id: "call_t", name: "read_file", arguments: { path: t?.path } },
					{ id: "call_b", name: "read_file", arguments: { path: b?.path } },
				],
			},
			{ text: ["Budget, then hiring."] },
		]);
		const frames = (await readAll(await chat(headers, { prompt: `What is on the agenda ${marker}` }))).map((e) => e.frame);
		expect(frames.filter((f) => f.type === "tool-result").map((f) => f.ok)).toEqual([true, true]);
		const results = bodyOf((await sent(marker))[1])
			.messages.filter((m) => m.role === "tool")
			.map((m) => JSON.parse(m.content ?? "{}"));
		expect(results[0]).toEqual({ path: t?.path, content: "1. budget\n2. hiring\n" });
		expect(results[1]).toMatchObject({ path: b?.path, binary: true, size: 5, content_type: "image/jpeg" });
	});
});

describe("deleting uploads", () => {
	it("deletes an upload: no longer listed or readable, its bytes gone; other paths are refused", async () => {
		const { user, headers } = await userWithKey();
		const [kept, gone] = await upload(headers, { name: "keep.txt", bytes: text("keep") }, { name: "drop.txt", bytes: text("drop") });
		expect(await objectsOf(user.id)).toBe(2);
		const res = await call("DELETE", `/agent/api/workspace/file?path=${gone?.path}`, { headers });
		expect(res.status).toBe(200);
		expect(await json(res)).toEqual({ ok: true, path: gone?.path });
		expect(await treeOf(headers)).toEqual([kept?.path]);
		expect((await call("GET", `/agent/workspace/file?path=${gone?.path}`, { headers })).status).toBe(404);
		expect(await objectsOf(user.id)).toBe(1);
		const again = await call("DELETE", `/agent/workspace/file?path=${gone?.path}`, { headers });
		expect(again.status).toBe(404);
		expect(await json(again)).toEqual({ detail: "not found" });

		for (const [path, detail] of [
			["notes/todo.md", "Only uploads are deleted here (uploads/…); notes/todo.md changes through a commit"],
			["uploads/../policy/members.json", "Invalid path: path must not leave the workspace (..)"],
		] as const) {
			const refused = await call("DELETE", `/agent/workspace/file?path=${encodeURIComponent(path)}`, { headers });
			expect(refused.status, path).toBe(400);
			expect(await json(refused)).toEqual({ detail });
		}
		expect(await treeOf(headers)).toEqual([kept?.path]);
	});
});

describe("the upload quota", () => {
	it("refuses files past WORKSPACE_UPLOAD_QUOTA_FILES with 413 naming it, storing nothing; a delete makes room", async () => {
		const { user, headers } = await userWithKey();
		const quota = { WORKSPACE_UPLOAD_QUOTA_FILES: "2" };
		const post = (...files: Parameters<typeof form>) => withSettings(quota, "POST", "/agent/api/workspace/upload", headers, form(...files));
		expect((await post({ name: "a.txt", bytes: text("a") }, { name: "b.txt", bytes: text("b") })).status).toBe(200);
		const before = await treeOf(headers);

		const over = await post({ name: "c.txt", bytes: text("c") });
		expect(over.status).toBe(413);
		expect(await json(over)).toEqual({
			detail:
				"Upload quota exceeded: each user may keep 2 uploaded files (WORKSPACE_UPLOAD_QUOTA_FILES) and you keep 2; delete uploads with DELETE /agent/workspace/file?path=uploads/<name> to make room",
		});
		expect(await treeOf(headers)).toEqual(before);
		expect(await objectsOf(user.id)).toBe(2);

		// The same file again replaces the one kept: no more files.
		expect((await post({ name: "a.txt", bytes: text("a") })).status).toBe(200);
		expect((await call("DELETE", `/agent/workspace/file?path=${before[0]}`, { headers })).status).toBe(200);
		expect((await post({ name: "c.txt", bytes: text("c") })).status).toBe(200);
		expect(await objectsOf(user.id)).toBe(2);
	});

	it("refuses bytes past WORKSPACE_UPLOAD_QUOTA_BYTES with 413 naming it, and an upload of the same file again takes no more", async () => {
		const { user, headers } = await userWithKey();
		const quota = { WORKSPACE_UPLOAD_QUOTA_BYTES: "1000" };
		const post = (...files: Parameters<typeof form>) => withSettings(quota, "POST", "/agent/workspace/upload", headers, form(...files));
		const first = { name: "first.bin", bytes: new Uint8Array(600).fill(1) };
		expect((await post(first)).status).toBe(200);
		expect((await post(first)).status).toBe(200);
		expect(await objectsOf(user.id)).toBe(1);

		// Refused once the second file is in: the first, stored already, goes too.
		const over = await post(
			{ name: "small.bin", bytes: new Uint8Array(100).fill(2) },
			{ name: "second.bin", bytes: new Uint8Array(500).fill(3) },
		);
		expect(over.status).toBe(413);
		expect((await json<{ detail: string }>(over)).detail).toBe(
			"Upload quota exceeded: each user may keep 1000 bytes of uploads (WORKSPACE_UPLOAD_QUOTA_BYTES) and you keep 600; delete uploads with DELETE /agent/workspace/file?path=uploads/<name> to make room",
		);
		expect(await treeOf(headers)).toHaveLength(1);
		expect(await objectsOf(user.id)).toBe(1);
	});
});

describe("streaming an upload", () => {
	it("refuses a file over 25 MiB while it streams: the rest of the request is never read, and nothing is stored", async () => {
		const { user, headers } = await userWithKey();
		const boundary = "----upload-test-boundary";
		const head = text(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="endless.bin"\r\n\r\n`);
		const chunk = new Uint8Array(MiB).fill(42);
		let produced = 0;
		// 200 MiB if read to the end, produced only as the gateway reads; sent without a length.
		const body = new ReadableStream<Uint8Array>({
			pull(controller) {
				if (produced === 0) controller.enqueue(head);
				if (produced >= 200 * MiB) controller.close();
				else {
					produced += chunk.length;
					controller.enqueue(chunk);
				}
			},
		});
		const res = await call("POST", "/agent/workspace/upload", {
			headers: { ...headers, "content-type": `multipart/form-data; boundary=${boundary}` },
			body,
		});
		expect(res.status).toBe(413);
		expect(await json(res)).toEqual({ detail: "File too large: endless.bin is over 26214400 bytes (25 MiB)" });
		// Read up to the 25 MiB limit and a little buffering past it, not the request.
		expect(produced).toBeLessThan(40 * MiB);
		expect(await objectsOf(user.id)).toBe(0);
		expect(await treeOf(headers)).toEqual([]);
	});

	it("answers 400 to a body that is no readable multipart form, storing nothing", async () => {
		const { user, headers } = await userWithKey();
		for (const body of [
			"no boundary here",
			"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n",
			'--b\r\nContent-Disposition: form-data; name="files"; filename="cut.txt"\r\n\r\ncut',
		]) {
			const res = await call("POST", "/agent/workspace/upload", {
				headers: { ...headers, "content-type": "multipart/form-data; boundary=b" },
				body,
			});
			expect(res.status, body).toBe(400);
			expect((await json<{ detail: string }>(res)).detail).toMatch(/^Expected a multipart form with `files`: /);
		}
		expect(await objectsOf(user.id)).toBe(0);
	});
});
