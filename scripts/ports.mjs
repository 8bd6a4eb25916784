import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * A TCP port free on loopback right now, for a server started a little later. It is chosen at
 * random below the kernel's ephemeral range: a port from that range (what `listen(0)` hands
 * out) can be taken before the server binds it, by another test's `listen(0)` or by any
 * outgoing connection's local end, which is how `npm start`'s gateway once met a bot host of
 * the other test lane on its port.
 */
export async function freePort() {
	const ephemeralFloor = kernelEphemeralFloor();
	const [low, high] = [20_000, Math.min(ephemeralFloor, 32_768) - 1];
	if (high - low > 1000) {
		for (let tries = 0; tries < 50; tries++) {
			const port = low + Math.floor(Math.random() * (high - low));
			if (await bindable(port)) return port;
		}
	}
	return anyPort();
}

function kernelEphemeralFloor() {
	try {
		const [floor] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
		return Number.isSafeInteger(floor) ? floor : 32_768;
	} catch {
		return 32_768;
	}
}

function bindable(port) {
	return new Promise((resolve) => {
		const server = createServer();
		server.once("error", () => resolve(false));
		server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
	});
}

function anyPort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (address && typeof address === "object" ? resolve(address.port) : reject(new Error("no port"))));
		});
	});
}
