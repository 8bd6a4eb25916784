import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { workspaceObject } from "../../../src/objects";
import { homeWorkspace } from "../../../src/workspace/workspace-names";
import { call, userWithKey } from "../support";

const REFS = "/agent/api/workspace/repo.git/info/refs?service=git-upload-pack";
const UPLOAD = "/agent/api/workspace/repo.git/git-upload-pack";

const text = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());

function pkt(line: string): string {
	return `${(line.length + 4).toString(16).padStart(4, "0")}${line}`;
}

/** The first commit of the user's home workspace, seeded through the object. */
async function seededHome(userId: number, email: string): Promise<string> {
	const ws = workspaceObject(env, homeWorkspace(userId));
	await ws.init(homeWorkspace(userId), { name: "Ada", email });
	const [head] = (await ws.summary(email, 1)).commits;
	if (!head) throw new Error("no seed commit");
	return head.sha;
}

describe("the git export of a workspace (smart HTTP, read-only)", () => {
	it("advertises an empty repository for a workspace never initialized, and writes nothing", async () => {
		const { user, headers } = await userWithKey();
		const res = await call("GET", REFS, { headers });
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("application/x-git-upload-pack-advertisement");
		const body = await text(res);
		expect(body.startsWith("001e# service=git-upload-pack\n0000")).toBe(true);
		expect(body).toContain(`${"0".repeat(40)} capabilities^{}\0agent=`);
		expect(body.endsWith("0000")).toBe(true);
		expect(await workspaceObject(env, homeWorkspace(user.id)).tree(true)).toEqual([]);
	});

	it("advertises HEAD (symref to main) and main, then packs every object of what is wanted", async () => {
		const { user, headers } = await userWithKey();
		const head = await seededHome(user.id, user.email);
		const refs = await text(await call("GET", REFS, { headers }));
		expect(refs).toContain(`${head} HEAD\0symref=HEAD:refs/heads/main agent=`);
		expect(refs).toContain(`${head} refs/heads/main\n`);

		const request = `${pkt(`want ${head}\n`)}0000${pkt("done\n")}`;
		const res = await call("POST", UPLOAD, {
			headers: { ...headers, "content-type": "application/x-git-upload-pack-request" },
			body: request,
		});
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("application/x-git-upload-pack-result");
		const bytes = new Uint8Array(await res.arrayBuffer());
		expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe("0008NAK\n");
		expect(new TextDecoder().decode(bytes.subarray(8, 12))).toBe("PACK");
		const objects = new DataView(bytes.buffer, bytes.byteOffset + 16, 4).getUint32(0);
		const files = (await workspaceObject(env, homeWorkspace(user.id)).tree(true)).length;
		// One commit, at least one tree, and a blob per file (identical files share one).
		expect(objects).toBeGreaterThan(files / 2 + 1);
	});

	it("refuses a want it did not advertise, a push, and a request that is no pkt-lines", async () => {
		const { user, headers } = await userWithKey();
		await seededHome(user.id, user.email);
		const stranger = "1".repeat(40);
		const res = await call("POST", UPLOAD, { headers, body: `${pkt(`want ${stranger}\n`)}0000${pkt("done\n")}` });
		expect(await text(res)).toContain("ERR upload-pack: not our ref");
		const push = await call("GET", "/agent/api/workspace/repo.git/info/refs?service=git-receive-pack", { headers });
		expect(push.status).toBe(403);
		const garbage = await call("POST", UPLOAD, { headers, body: "hello" });
		expect(garbage.status).toBe(400);
	});
});

describe("the git export's authentication", () => {
	it("answers 401 with a Basic challenge, so git sends its credentials", async () => {
		const res = await call("GET", REFS);
		expect(res.status).toBe(401);
		expect(res.headers.get("www-authenticate")).toBe('Basic realm="workspace"');
		expect(await res.json()).toEqual({ detail: "Missing API key" });
		const short = await call("GET", "/agent/workspace/repo.git/info/refs?service=git-upload-pack");
		expect(short.headers.get("www-authenticate")).toBe('Basic realm="workspace"');
	});

	it("takes the key as the Basic password on the repo.git paths only", async () => {
		const { key } = await userWithKey();
		const basic = { Authorization: `Basic ${btoa(`x:${key}`)}` };
		expect((await call("GET", REFS, { headers: basic })).status).toBe(200);
		const wrong = await call("GET", REFS, { headers: { Authorization: `Basic ${btoa("x:not-a-key")}` } });
		expect(wrong.status).toBe(401);
		expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="workspace"');
		const elsewhere = await call("GET", "/agent/api/workspace/attached", { headers: basic });
		expect(elsewhere.status).toBe(401);
		expect(elsewhere.headers.get("www-authenticate")).toBeNull();
	});
});
