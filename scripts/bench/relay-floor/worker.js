// The floor for live fan-out (docs/bot-fleet.md#live-fan-out): one Durable Object holding a
// sender socket and N receiver sockets, relaying each sender message to every receiver as is.
// Nothing is parsed, stored or forwarded to another object; ours cannot be faster than this.
// With `hop=<name>` the sender's object forwards each message by RPC to the object `<name>`,
// which holds the receivers: the floor of any design with a second object on the path.
import { DurableObject } from "cloudflare:workers";

export class Relay extends DurableObject {
	fetch(request) {
		const params = new URL(request.url).searchParams;
		const role = params.get("role") === "sender" ? "sender" : "receiver";
		const pair = new WebSocketPair();
		this.ctx.acceptWebSocket(pair[1], params.get("hop") ? [role, `hop:${params.get("hop")}`] : [role]);
		return new Response(null, { status: 101, webSocket: pair[0] });
	}

	webSocketMessage(socket, data) {
		const tags = this.ctx.getTags(socket);
		if (!tags.includes("sender")) return;
		const hop = tags.find((t) => t.startsWith("hop:"))?.slice(4);
		if (hop) {
			this.hop ??= this.env.RELAY.get(this.env.RELAY.idFromName(hop));
			void this.hop.relay(data);
			return;
		}
		this.relay(data);
	}

	relay(data) {
		for (const receiver of this.ctx.getWebSockets("receiver")) {
			try {
				receiver.send(data);
			} catch {
				// a receiver closing right now
			}
		}
	}

	webSocketClose(socket, code, reason) {
		try {
			socket.close(code === 1005 || code === 1006 ? 1000 : code, reason);
		} catch {
			// already closed
		}
	}
}

export default {
	fetch(request, env) {
		const url = new URL(request.url);
		if (url.pathname === "/health") return new Response("ok");
		if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
		// One relay per room name, so the 1- and 500-receiver runs do not share sockets.
		const room = url.searchParams.get("room") ?? "default";
		return env.RELAY.get(env.RELAY.idFromName(room)).fetch(request);
	},
};
