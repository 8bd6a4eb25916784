/**
 * The read-only git export of a workspace: git's "smart HTTP" protocol, version 0/1, upload-pack
 * only (`git clone`, `git fetch`). Git 2.39 asks for protocol v2 in a `Git-Protocol` header; a
 * server that answers in v0 is understood and the client falls back, so v2 is not spoken here.
 *
 * Capabilities are kept to what this file implements: `symref` (so `git clone` checks out the
 * branch HEAD names) and `agent`. With no `multi_ack`, `side-band` or `shallow`, the answer to a
 * request that ends in `done` is one `ACK`/`NAK` line followed by the raw packfile. A shallow
 * repository still lists its cut (`shallow` lines after the refs), as git's own server does.
 *
 * An empty workspace (never initialized) is exported as an empty repository rather than seeded:
 * a read must not write, and git clones an empty repository with a warning.
 */
import git, { type CommitObject, type FsClient, type TagObject } from "isomorphic-git";
import { concatBytes } from "../../src/bytes";

/** Where a repository is: what isomorphic-git needs to read it. */
export interface GitRepository {
	fs: FsClient;
	dir: string;
	gitdir?: string;
	cache?: object;
}

const ADVERTISEMENT = "application/x-git-upload-pack-advertisement";
const RESULT = "application/x-git-upload-pack-result";
const ZERO_OID = "0".repeat(40);
const AGENT = "agent=meetbot-workspace/1";

/**
 * Answers one request of the export. `request`'s path ends in `/info/refs` (GET, with
 * `service=git-upload-pack`) or `/git-upload-pack` (POST); anything else is refused. Pushing is
 * not offered: `git-receive-pack` is 403.
 */
export async function serveGitExport(request: Request, repository: GitRepository): Promise<Response> {
	const url = new URL(request.url);
	if (url.pathname.endsWith("/info/refs")) {
		const service = url.searchParams.get("service");
		if (service === "git-receive-pack") return plain(403, "This repository is read-only");
		// The "dumb" protocol (no service) is not offered: only the smart one.
		if (service !== "git-upload-pack") return plain(400, "Only the smart HTTP protocol (service=git-upload-pack) is served");
		if (request.method !== "GET") return plain(405, "Method not allowed");
		return new Response(await advertisement(repository), { headers: noCache(ADVERTISEMENT) });
	}
	if (url.pathname.endsWith("/git-receive-pack")) return plain(403, "This repository is read-only");
	if (url.pathname.endsWith("/git-upload-pack")) {
		if (request.method !== "POST") return plain(405, "Method not allowed");
		const negotiation = parseUploadRequest(new Uint8Array(await request.arrayBuffer()));
		if (!negotiation) return plain(400, "Malformed upload-pack request");
		return uploadPack(repository, negotiation);
	}
	return plain(404, "not found");
}

/** The refs, HEAD first, each with its object id; the first line carries the capabilities. */
export async function listExportedRefs(repository: GitRepository): Promise<{ head: string | null; refs: [name: string, oid: string][] }> {
	const { fs, dir, gitdir } = repository;
	const refs: [string, string][] = [];
	let head: string | null = null;
	try {
		head = await git.resolveRef({ fs, dir, gitdir, ref: "HEAD" });
	} catch {
		// No HEAD commit yet (or no repository at all): nothing to name.
	}
	for (const kind of ["heads", "tags"] as const) {
		let names: string[] = [];
		try {
			names = await git.listRefs({ fs, dir, gitdir, filepath: `refs/${kind}` });
		} catch {
			names = [];
		}
		for (const name of names.sort()) {
			const full = `refs/${kind}/${name}`;
			try {
				refs.push([full, await git.resolveRef({ fs, dir, gitdir, ref: full })]);
			} catch {
				// A dangling ref is not advertised: a client would ask for an object we lack.
			}
		}
	}
	return { head: head && refs.length > 0 ? head : null, refs };
}

async function advertisement(repository: GitRepository): Promise<Uint8Array> {
	const { head, refs } = await listExportedRefs(repository);
	const capabilities = [AGENT];
	const headBranch = await symbolicHead(repository);
	if (head && headBranch) capabilities.unshift(`symref=HEAD:${headBranch}`);
	const lines: [name: string, oid: string][] = head ? [["HEAD", head], ...refs] : refs;
	const parts: Uint8Array[] = [pktLine("# service=git-upload-pack\n"), FLUSH];
	if (lines.length === 0) {
		// An empty repository: one line naming only the capabilities (gitprotocol-pack).
		parts.push(pktLine(`${ZERO_OID} capabilities^{}\0${capabilities.join(" ")}\n`));
	} else {
		lines.forEach(([name, oid], i) => {
			parts.push(pktLine(i === 0 ? `${oid} ${name}\0${capabilities.join(" ")}\n` : `${oid} ${name}\n`));
		});
	}
	// A shallow repository (an attached, shallowly cloned one) says where its history is cut,
	// so the client records the same cut instead of asking for parents nobody has.
	for (const oid of await shallowCommits(repository)) parts.push(pktLine(`shallow ${oid}\n`));
	parts.push(FLUSH);
	return concatBytes(parts);
}

/** The commits whose parents this repository does not have (`.git/shallow`). */
export async function shallowCommits(repository: GitRepository): Promise<Set<string>> {
	const promises = "promises" in repository.fs ? repository.fs.promises : null;
	if (!promises) return new Set();
	const gitdir = repository.gitdir ?? `${repository.dir.replace(/\/$/, "")}/.git`;
	try {
		const text = String(await promises.readFile(`${gitdir}/shallow`, "utf8"));
		return new Set(text.split("\n").filter(isOid));
	} catch {
		return new Set();
	}
}

async function symbolicHead(repository: GitRepository): Promise<string | null> {
	try {
		return (await git.currentBranch({ ...repository, fullname: true })) ?? null;
	} catch {
		return null;
	}
}

export interface UploadRequest {
	wants: string[];
	haves: string[];
	done: boolean;
}

/** Reads the client's `want`/`have`/`done` pkt-lines; null when they are not pkt-lines. */
export function parseUploadRequest(body: Uint8Array): UploadRequest | null {
	const request: UploadRequest = { wants: [], haves: [], done: false };
	const text = new TextDecoder();
	let at = 0;
	while (at < body.length) {
		if (at + 4 > body.length) return null;
		const size = Number.parseInt(text.decode(body.subarray(at, at + 4)), 16);
		if (!Number.isInteger(size) || (size > 0 && size < 4)) return null;
		if (size === 0) {
			at += 4;
			continue;
		}
		if (at + size > body.length) return null;
		const line = text.decode(body.subarray(at + 4, at + size)).replace(/\n$/, "");
		at += size;
		const [verb, oid] = line.split(/[ \0]/, 2);
		if (verb === "want" && isOid(oid)) request.wants.push(oid);
		else if (verb === "have" && isOid(oid)) request.haves.push(oid);
		else if (verb === "done") request.done = true;
		else if (verb === "want" || verb === "have") return null;
		// Other lines (`shallow`, `deepen`, `filter`) name capabilities this server never advertised.
	}
	return request.wants.length > 0 ? request : null;
}

const isOid = (value: string | undefined): value is string => typeof value === "string" && /^[0-9a-f]{40}$/.test(value);

async function uploadPack(repository: GitRepository, negotiation: UploadRequest): Promise<Response> {
	// Stateless negotiation without multi_ack: until the client says `done`, each round is a NAK.
	if (!negotiation.done) return new Response(pktLine("NAK\n"), { headers: noCache(RESULT) });
	const advertised = new Set((await listExportedRefs(repository)).refs.map(([, oid]) => oid));
	if (negotiation.wants.some((oid) => !advertised.has(oid))) {
		return new Response(pktLine("ERR upload-pack: not our ref\n"), { headers: noCache(RESULT) });
	}
	const common = new Set<string>();
	for (const have of negotiation.haves) if (await hasObject(repository, have)) common.add(have);
	// What the client already has is left out: everything reachable from a common commit.
	const known = common.size > 0 ? await reachableObjects(repository, [...common], new Set()) : new Set<string>();
	const oids = await reachableObjects(repository, negotiation.wants, known);
	const { packfile } = await git.packObjects({ ...repository, oids: [...oids] });
	// Without multi_ack the answer names one common commit (ACK) or none (NAK), then the pack.
	const [firstCommon] = common;
	const acknowledgement = firstCommon ? pktLine(`ACK ${firstCommon}\n`) : pktLine("NAK\n");
	return new Response(concatBytes([acknowledgement, packfile ?? new Uint8Array(0)]), { headers: noCache(RESULT) });
}

async function hasObject(repository: GitRepository, oid: string): Promise<boolean> {
	try {
		await git.readObject({ ...repository, oid, format: "deflated" });
		return true;
	} catch {
		return false;
	}
}

/** Every object reachable from `starts` (commits, their trees and blobs, tag targets), minus `known`. */
export async function reachableObjects(repository: GitRepository, starts: string[], known: Set<string>): Promise<Set<string>> {
	const found = new Set<string>();
	const pending = [...starts];
	const cut = await shallowCommits(repository);
	const seen = (oid: string) => found.has(oid) || known.has(oid);
	while (pending.length > 0) {
		const oid = pending.pop() as string;
		if (seen(oid)) continue;
		const object = await git.readObject({ ...repository, oid, format: "parsed" });
		found.add(oid);
		if (object.type === "commit") {
			const commit = object.object as CommitObject;
			if (!cut.has(oid)) pending.push(...commit.parent);
			await collectTree(repository, commit.tree, found, known);
		} else if (object.type === "tag") {
			pending.push((object.object as TagObject).object);
		} else if (object.type === "tree") {
			found.delete(oid);
			await collectTree(repository, oid, found, known);
		}
	}
	return found;
}

async function collectTree(repository: GitRepository, treeOid: string, found: Set<string>, known: Set<string>): Promise<void> {
	if (found.has(treeOid) || known.has(treeOid)) return;
	found.add(treeOid);
	const { tree } = await git.readTree({ ...repository, oid: treeOid });
	for (const entry of tree) {
		if (entry.type === "tree") await collectTree(repository, entry.oid, found, known);
		// A submodule's commit lives in another repository: nothing of it is packed here.
		else if (entry.type === "blob" && !known.has(entry.oid)) found.add(entry.oid);
	}
}

const encoder = new TextEncoder();
const FLUSH = encoder.encode("0000");

function pktLine(text: string): Uint8Array {
	const payload = encoder.encode(text);
	const length = (payload.length + 4).toString(16).padStart(4, "0");
	return concatBytes([encoder.encode(length), payload]);
}

const noCache = (contentType: string) => ({ "content-type": contentType, "cache-control": "no-cache" });

const plain = (status: number, text: string) => new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
