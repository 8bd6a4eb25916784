import { MAX_QUEUED_COMMAND_BYTES, MAX_QUEUED_COMMANDS, type RoomToBot } from "../../src/bot-channel/protocol";
import { ROOM_KEYS } from "./storage";

/**
 * The commands a room keeps for its bot while the bot is away, sent in order when it says hello
 * again. Bounded in count and in bytes; each command is stored under its own keys, cut into
 * parts well under the 2 MB a storage value may hold, so a command carrying the largest audio
 * the speak route takes (MAX_MEDIA_BODY_BYTES) fits as well as fifty chat lines.
 */
export type QueueRefusal = "too_many" | "too_large";

interface QueueState {
	/** The number the next command is stored under. */
	next: number;
	count: number;
	bytes: number;
}

const STATE_KEY = ROOM_KEYS.commandQueue;
const PART_PREFIX = ROOM_KEYS.commandParts;
/** Commands stored by gateways before commands had keys of their own: one value holding them all. */
const LEGACY_KEY = ROOM_KEYS.queuedCommands;
/** Characters per stored part: at most 1 MiB even where a string is stored as two bytes a character. */
const PART_CHARS = 512 * 1024;

const partKey = (command: number, part: number) => `${PART_PREFIX}${String(command).padStart(10, "0")}:${String(part).padStart(4, "0")}`;

export class CommandQueue {
	constructor(private readonly storage: DurableObjectStorage) {}

	/** Keeps a command for the bot's return; a refusal when the queue is full in count or in bytes, and nothing is kept then. */
	async push(message: RoomToBot): Promise<QueueRefusal | null> {
		const state = (await this.storage.get<QueueState>(STATE_KEY)) ?? { next: 0, count: 0, bytes: 0 };
		if (state.count >= MAX_QUEUED_COMMANDS) return "too_many";
		const text = JSON.stringify(message);
		const bytes = new TextEncoder().encode(text).byteLength;
		if (state.bytes + bytes > MAX_QUEUED_COMMAND_BYTES) return "too_large";
		const entries: Record<string, unknown> = { [STATE_KEY]: { next: state.next + 1, count: state.count + 1, bytes: state.bytes + bytes } };
		for (let part = 0; part * PART_CHARS < text.length; part++) {
			entries[partKey(state.next, part)] = text.slice(part * PART_CHARS, (part + 1) * PART_CHARS);
		}
		// One put: the parts and the new totals are stored together or not at all.
		await this.storage.put(entries);
		return null;
	}

	/**
	 * Every kept command as the JSON text to send, oldest first, and the queue emptied. Texts, not
	 * objects: parsing and serializing tens of MB of audio again would only double the memory held.
	 */
	async drain(): Promise<string[]> {
		const parts = await this.storage.list<string>({ prefix: PART_PREFIX });
		const texts = new Map<string, string>();
		for (const [key, part] of parts) {
			const command = key.slice(PART_PREFIX.length, key.lastIndexOf(":"));
			texts.set(command, (texts.get(command) ?? "") + part);
		}
		const legacy = (await this.storage.get<RoomToBot[]>(LEGACY_KEY)) ?? [];
		await this.clear([...parts.keys()]);
		return [...legacy.map((command) => JSON.stringify(command)), ...texts.values()];
	}

	/** Forgets every kept command (the meeting ended, or a new bot starts from nothing). */
	async clear(keys?: string[]): Promise<void> {
		const parts = keys ?? [...(await this.storage.list({ prefix: PART_PREFIX })).keys()];
		// delete() takes at most 128 keys a call.
		for (let i = 0; i < parts.length; i += 128) await this.storage.delete(parts.slice(i, i + 128));
		await this.storage.delete([STATE_KEY, LEGACY_KEY]);
	}
}
