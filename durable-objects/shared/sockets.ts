/** Completes a WebSocket's close handshake; the socket may already be gone. */
export function closeQuietly(socket: WebSocket, code: number, reason: string): void {
	try {
		// 1005 and 1006 describe a close that had no code; they may not be sent.
		socket.close(code === 1005 || code === 1006 ? 1000 : code, reason);
	} catch {
		// already closed
	}
}
