/**
 * The Worker's streaming relay (src/bots/transcription-stream.ts) as a bot host test needs it in
 * Node: the bot's channel token checked, the provider's key added in the provider's own header,
 * frames and closes piped both ways. The Worker's own relay is tested in workerd
 * (test/worker/bots/transcription-stream.test.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import type { StreamingSttServer } from "../../test/receiver/streaming-stt.ts";

/**
 * The Worker's relay as the bot sees it: `channelToken` as Bearer, the bot's query passed on,
 * `authorization` (the provider's key in its own header) added, frames and closes piped both
 * ways. Its closing is pushed on `closers`.
 */
export async function relayTo(
	provider: StreamingSttServer,
	path: string,
	authorization: string,
	channelToken: string,
	closers: (() => Promise<void>)[],
): Promise<{ url: string; refusedTokens: string[] }> {
	const refusedTokens: string[] = [];
	const wss = new WebSocketServer({ noServer: true });
	const server = http.createServer((_req, res) => res.writeHead(426).end());
	server.on("upgrade", (req, socket, head) => {
		if (req.headers.authorization !== `Bearer ${channelToken}`) {
			refusedTokens.push(req.headers.authorization ?? "");
			socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n");
			return;
		}
		const query = new URL(req.url ?? "/", "http://relay").search;
		const upstream = new WebSocket(`${provider.wsUrl}${path}${query}`, { headers: { Authorization: authorization } });
		wss.handleUpgrade(req, socket, head, (bot) => {
			const early: { data: WebSocket.RawData; binary: boolean }[] = [];
			bot.on("message", (data, binary) => {
				if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
				else early.push({ data, binary });
			});
			upstream.on("open", () => {
				for (const m of early.splice(0)) upstream.send(m.data, { binary: m.binary });
			});
			upstream.on("message", (data, binary) => bot.send(data, { binary }));
			upstream.on("close", (code, reason) => bot.close(code === 1005 || code === 1006 ? 1011 : code, reason));
			upstream.on("unexpected-response", (_r, res) => bot.close(1011, `provider answered ${res.statusCode}`));
			bot.on("close", () => upstream.close());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	closers.push(
		() =>
			new Promise<void>((resolve) => {
				for (const c of wss.clients) c.terminate();
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	);
	return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/stream`, refusedTokens };
}
