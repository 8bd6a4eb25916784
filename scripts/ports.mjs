import { createServer } from "node:net";

/** A TCP port free on loopback right now. */
export function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (address && typeof address === "object" ? resolve(address.port) : reject(new Error("no port"))));
		});
	});
}
