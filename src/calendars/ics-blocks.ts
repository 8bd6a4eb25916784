/**
 * An ICS feed cut into smaller calendars that parse alike, so that parsing a large feed is
 * many short steps a budget can stop between, not one long one. Each part holds the calendar's
 * own properties and every VTIMEZONE, then a share of the VEVENTs; all VEVENTs of one UID (a
 * series and its moved instances) stay in the same part. Other components are left out (the
 * import reads only events). A feed whose structure is not plain nesting is one part, whole.
 */

/** One part: a complete calendar, and the UIDs of the events in it. */
export interface FeedPart {
	text: string;
	uids: string[];
}

const EVENTS_PER_PART = 200;

export function feedParts(text: string): FeedPart[] {
	const lines = text.split(/\r?\n/);
	const shared: string[] = [];
	const events = new Map<string, string[]>();
	let block: string[] | null = null;
	let keepBlock = false;
	let depth = 0;
	let unnamed = 0;
	let calendars = 0;
	for (const line of lines) {
		const begin = /^BEGIN:([A-Za-z-]+)\s*$/i.exec(line)?.[1]?.toUpperCase();
		const end = /^END:([A-Za-z-]+)\s*$/i.exec(line)?.[1]?.toUpperCase();
		if (depth === 0) {
			if (line.trim() === "") continue;
			if (begin !== "VCALENDAR" || ++calendars > 1) return [whole(text)];
			depth = 1;
			continue;
		}
		if (depth === 1) {
			if (end === "VCALENDAR") {
				depth = 0;
				continue;
			}
			if (begin === "VCALENDAR") return [whole(text)];
			if (begin) {
				block = [line];
				keepBlock = begin === "VEVENT" || begin === "VTIMEZONE";
				depth = 2;
				continue;
			}
			// A line of the calendar's own (a property, or the continuation of one).
			shared.push(line);
			continue;
		}
		block?.push(line);
		if (begin) depth++;
		if (end) depth--;
		if (depth > 1 || !block) continue;
		if (keepBlock && /^BEGIN:VEVENT\s*$/i.test(block[0] ?? "")) {
			const uid = uidOf(block) ?? `\u0000unnamed-${unnamed++}`;
			const group = events.get(uid);
			if (group) group.push(...block);
			else events.set(uid, block);
		} else if (keepBlock) shared.push(...block);
		block = null;
	}
	if (depth !== 0 || block) return [whole(text)];
	const parts: FeedPart[] = [];
	const groups = [...events.entries()];
	for (let i = 0; i < groups.length || i === 0; i += EVENTS_PER_PART) {
		const slice = groups.slice(i, i + EVENTS_PER_PART);
		parts.push({
			text: ["BEGIN:VCALENDAR", ...shared, ...slice.flatMap(([, block]) => block), "END:VCALENDAR", ""].join("\r\n"),
			uids: slice.map(([uid]) => uid).filter((uid) => !uid.startsWith("\u0000")),
		});
	}
	return parts;
}

function whole(text: string): FeedPart {
	return { text, uids: [] };
}

/** The value of an event's UID line, unfolded and unescaped as node-ical reads it, or null when it has none. */
function uidOf(block: string[]): string | null {
	const at = block.findIndex((line) => /^UID[;:]/i.test(line));
	if (at < 0) return null;
	let value = block[at] ?? "";
	for (let next = at + 1; /^[ \t]/.test(block[next] ?? ""); next++) value += (block[next] ?? "").slice(1);
	return value
		.slice(value.indexOf(":") + 1)
		.replace(/\\([\\;,nN])/g, (_, c: string) => (c === "n" || c === "N" ? "\n" : c))
		.replace(/^"(.*)"$/, "$1");
}
