/** What the local provider servers of the tests (webhook receiver, model server) share: reading a body, answering JSON. */
import type { IncomingMessage, ServerResponse } from "node:http";

export function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => resolve(Buffer.concat(chunks)));
		req.on("error", reject);
	});
}

export function json(res: ServerResponse, status: number, value: unknown) {
	res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}
