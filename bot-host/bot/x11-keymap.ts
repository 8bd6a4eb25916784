/**
 * Every character a bot types gets a key of its own on the bot's display before it is typed.
 * xdotool types a character its keyboard lacks (ü, É, 🤖, 日) by binding it to a spare key for one
 * press and unbinding it straight after; Chromium reads the new binding only after that press, so
 * it types what the key meant the time before (measured on Chromium 156: "É" came out as "ü",
 * "Ü" as "ü"). Bound here, the binding stays, Chromium has read it before the first press, and
 * xdotool finds the character on the keyboard (with Shift for the upper case of a letter).
 * This speaks the few X11 requests it needs itself over the display's socket, with the display's
 * cookie: no further package on the host.
 */
import net from "node:net";
import type { VirtualDisplay } from "./display.ts";

/** The X11 keysym of a character (Xlib's keysymdef.h). */
export function keysymOf(codePoint: number): number {
	// Latin-1 characters are their own keysyms; everything else is 0x01000000 + the code point.
	if ((codePoint >= 0x20 && codePoint <= 0x7e) || (codePoint >= 0xa0 && codePoint <= 0xff)) return codePoint;
	return 0x01000000 + codePoint;
}

/** Keys X servers give to vendor functions (XF86 media and hardware keys): a bot never presses them, so they are spare. */
const isVendorKeysym = (keysym: number) => keysym >= 0x1008ff00 && keysym <= 0x1008ffff;

interface Keyboard {
	minKeycode: number;
	keysymsPerKeycode: number;
	/** keysyms[keycode - minKeycode][level] */
	keysyms: number[][];
}

/** The pair of keysyms one key gets for a character: its lower and upper case for a letter that has both, else itself twice. */
function keyFor(char: string): [number, number] {
	const lower = char.toLowerCase();
	const upper = char.toUpperCase();
	const single = (s: string) => [...s].length === 1;
	if (lower !== upper && single(lower) && single(upper)) return [keysymOf(lower.codePointAt(0) ?? 0), keysymOf(upper.codePointAt(0) ?? 0)];
	const keysym = keysymOf(char.codePointAt(0) ?? 0);
	return [keysym, keysym];
}

/**
 * Binds the characters of `text` that the display's keyboard lacks, as many as it has spare keys
 * for (in order of first appearance). Answers how much of `text`, from its start, can be typed now,
 * and how many characters it bound (Chromium needs a moment to read bindings that are new).
 */
export async function bindCharacters(display: VirtualDisplay, text: string): Promise<{ typeable: string; bound: number }> {
	const connection = await XConnection.open(display);
	try {
		const keyboard = await connection.keyboard();
		const present = new Set(keyboard.keysyms.flatMap((levels) => levels.slice(0, 2)));
		const spare = keyboard.keysyms
			.map((levels, i) => ({ keycode: keyboard.minKeycode + i, levels }))
			.filter(({ levels }) => levels.every((k) => k === 0 || isVendorKeysym(k)))
			.map(({ keycode }) => keycode)
			.reverse();
		let typeable = "";
		let bound = 0;
		for (const char of text) {
			const codePoint = char.codePointAt(0) ?? 0;
			// Control characters (a newline, a tab) are keys xdotool knows by name.
			if (codePoint >= 0x20 && !present.has(keysymOf(codePoint))) {
				const keysyms = keyFor(char);
				const keycode = spare.shift();
				if (keycode === undefined) break;
				connection.changeKey(keycode, keysyms, keyboard.keysymsPerKeycode);
				for (const k of keysyms) present.add(k);
				bound++;
			}
			typeable += char;
		}
		await connection.sync();
		return { typeable, bound };
	} finally {
		connection.close();
	}
}

/** One connection to an X server: the setup, GetKeyboardMapping, ChangeKeyboardMapping and a round trip to sync. */
class XConnection {
	private buffer = Buffer.alloc(0);
	private sequence = 0;
	private readonly waiting = new Map<number, { resolve: (reply: Buffer) => void; reject: (err: Error) => void }>();
	private readonly errors: string[] = [];
	private setup: { resolve: (reply: Buffer) => void; reject: (err: Error) => void } | null = null;
	private minKeycode = 8;
	private maxKeycode = 255;
	private readonly socket: net.Socket;

	private constructor(socket: net.Socket) {
		this.socket = socket;
		socket.on("data", (chunk: Buffer) => this.receive(chunk));
		socket.on("error", (err) => this.failAll(err));
		socket.on("close", () => this.failAll(new Error("the X server closed the connection")));
	}

	static async open(display: VirtualDisplay): Promise<XConnection> {
		// Linux X servers listen on an abstract socket as well as the file, which a host that cannot create /tmp/.X11-unix lacks.
		const socket = await connect(`\0/tmp/.X11-unix/X${display.number}`).catch(() => connect(`/tmp/.X11-unix/X${display.number}`));
		const connection = new XConnection(socket);
		await connection.handshake(display.cookie);
		return connection;
	}

	private handshake(cookie: Buffer): Promise<void> {
		const name = Buffer.from("MIT-MAGIC-COOKIE-1");
		const head = Buffer.alloc(12);
		head.write("l", 0); // little-endian
		head.writeUInt16LE(11, 2);
		head.writeUInt16LE(0, 4);
		head.writeUInt16LE(name.length, 6);
		head.writeUInt16LE(cookie.length, 8);
		return new Promise<Buffer>((resolve, reject) => {
			this.setup = { resolve, reject };
			this.socket.write(Buffer.concat([head, pad(name), pad(cookie)]));
		}).then((reply) => {
			this.minKeycode = reply.readUInt8(34);
			this.maxKeycode = reply.readUInt8(35);
		});
	}

	async keyboard(): Promise<Keyboard> {
		const count = this.maxKeycode - this.minKeycode + 1;
		const request = Buffer.alloc(8);
		request.writeUInt8(101, 0); // GetKeyboardMapping
		request.writeUInt16LE(2, 2);
		request.writeUInt8(this.minKeycode, 4);
		request.writeUInt8(count, 5);
		const reply = await this.send(request, true);
		const perKeycode = reply.readUInt8(1);
		const keysyms: number[][] = [];
		for (let i = 0; i < count; i++) {
			const levels: number[] = [];
			for (let level = 0; level < perKeycode; level++) levels.push(reply.readUInt32LE(32 + (i * perKeycode + level) * 4));
			keysyms.push(levels);
		}
		return { minKeycode: this.minKeycode, keysymsPerKeycode: perKeycode, keysyms };
	}

	/** ChangeKeyboardMapping of one key: `keysyms` on its first levels, nothing on the rest. */
	changeKey(keycode: number, keysyms: number[], perKeycode: number): void {
		const request = Buffer.alloc(8 + perKeycode * 4);
		request.writeUInt8(100, 0);
		request.writeUInt8(1, 1);
		request.writeUInt16LE(2 + perKeycode, 2);
		request.writeUInt8(keycode, 4);
		request.writeUInt8(perKeycode, 5);
		for (const [level, keysym] of keysyms.slice(0, perKeycode).entries()) request.writeUInt32LE(keysym, 8 + level * 4);
		void this.send(request, false);
	}

	/** A GetInputFocus round trip: every request before it has been carried out, or its error is known. */
	async sync(): Promise<void> {
		const request = Buffer.alloc(4);
		request.writeUInt8(43, 0);
		request.writeUInt16LE(1, 2);
		await this.send(request, true);
		if (this.errors.length > 0) throw new Error(`the X server refused a keyboard change: ${this.errors.join(", ")}`);
	}

	close(): void {
		this.socket.destroy();
	}

	private send(request: Buffer, reply: boolean): Promise<Buffer> {
		this.sequence = (this.sequence + 1) & 0xffff;
		const sequence = this.sequence;
		this.socket.write(request);
		if (!reply) return Promise.resolve(Buffer.alloc(0));
		return new Promise((resolve, reject) => this.waiting.set(sequence, { resolve, reject }));
	}

	private receive(chunk: Buffer): void {
		this.buffer = Buffer.concat([this.buffer, chunk]);
		for (;;) {
			if (this.setup) {
				if (this.buffer.length < 8) return;
				const length = 8 + this.buffer.readUInt16LE(6) * 4;
				if (this.buffer.length < length) return;
				const reply = this.buffer.subarray(0, length);
				this.buffer = this.buffer.subarray(length);
				const { resolve, reject } = this.setup;
				this.setup = null;
				if (reply.readUInt8(0) === 1) resolve(reply);
				else
					reject(
						new Error(`the X server refused the connection: ${reply.toString("latin1", 8, 8 + reply.readUInt8(1)) || "no reason given"}`),
					);
				continue;
			}
			if (this.buffer.length < 32) return;
			const kind = this.buffer.readUInt8(0);
			const length = kind === 1 ? 32 + this.buffer.readUInt32LE(4) * 4 : 32;
			if (this.buffer.length < length) return;
			const packet = this.buffer.subarray(0, length);
			this.buffer = this.buffer.subarray(length);
			const sequence = packet.readUInt16LE(2);
			if (kind === 0) this.errors.push(`error ${packet.readUInt8(1)} for request ${packet.readUInt8(10)}`);
			else if (kind === 1) {
				this.waiting.get(sequence)?.resolve(packet);
				this.waiting.delete(sequence);
			}
			// Anything else is an event (MappingNotify after our own change): not ours to act on.
		}
	}

	private failAll(err: Error): void {
		this.setup?.reject(err);
		this.setup = null;
		for (const { reject } of this.waiting.values()) reject(err);
		this.waiting.clear();
	}
}

function connect(path: string): Promise<net.Socket> {
	return new Promise((resolve, reject) => {
		const socket = net.connect({ path });
		socket.once("connect", () => {
			socket.off("error", reject);
			resolve(socket);
		});
		socket.once("error", reject);
	});
}

/** X11 strings are padded to a multiple of 4 bytes. */
function pad(bytes: Buffer): Buffer {
	return Buffer.concat([bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4)]);
}
