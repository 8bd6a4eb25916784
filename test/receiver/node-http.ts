/** What the local provider servers of the tests (webhook receiver, model server) share: reading a body, answering JSON. */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

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

/** Starts listening on loopback; `close` also ends open (streaming) connections. */
export async function listenLocally(server: Server, port = 0, host = "127.0.0.1"): Promise<{ url: string; close(): Promise<void> }> {
	await new Promise<void>((resolve) => server.listen(port, host, resolve));
	const address = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${address.port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
