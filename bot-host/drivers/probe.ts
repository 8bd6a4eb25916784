/**
 * The in-page reader shared by all drivers: each platform describes its page in one table
 * (src/platforms/<platform>/page.ts) and this reads a full snapshot in a single evaluate per
 * tick. Only visible elements and visible text count, because every platform keeps hidden
 * in-call controls and stale screens in the DOM; and text that participants write (captions,
 * chat, names) never decides what screen the bot is on.
 *
 * Captions are also watched as the page changes them: once the bot is in the call, a
 * MutationObserver on the caption regions hands every change to the bot host at once through
 * the `__botCaptionsChanged` binding, instead of waiting for the next tick.
 */
import type { Page } from "puppeteer-core";
import type { NameSource, ProbeTable, UiTexts } from "../../src/platforms/page-facts.ts";
import type { CaptionLine, MeetingSnapshot, PageState, ProbeContext } from "./types.ts";

export type { ProbeContext } from "./types.ts";

/** The page binding caption changes arrive through (registered by `captionFeed`). */
export const CAPTIONS_BINDING = "__botCaptionsChanged";

interface ProbeWindow {
	__botProbeState?: {
		keys: WeakMap<Element, string>;
		/** The last text read from a caption element a platform may reuse for the next line. */
		lines: WeakMap<Element, string>;
		seq: number;
		observer: MutationObserver | null;
		pushed: string;
	};
	__botCaptionsChanged?: (json: string) => void;
}

/**
 * Runs in the page. Self-contained (no closures over module scope); the caption observer it
 * installs calls back into the reader through the closure of its first call.
 */
function probePage(table: ProbeTable, ctx: ProbeContext): MeetingSnapshot {
	const clean = (s: string) =>
		s
			.replace(/[\u2018\u2019\u02bc]/g, "'")
			.replace(/[\s\u00a0]+/g, " ")
			.trim();
	const fold = (s: string) => clean(s).toLowerCase();
	const visible = (e: Element) => (e as HTMLElement).getClientRects().length > 0;
	const all = (selectors: readonly string[], root: ParentNode = document) =>
		selectors.length === 0 ? [] : [...root.querySelectorAll(selectors.join(","))];
	// A machine id where a person's name should be (Teams' `video-stream-2`) is no name: the next source is read.
	const machine = table.participants.machineName ? new RegExp(`^(?:${table.participants.machineName})$`) : null;
	const readName = (e: Element, sources: readonly NameSource[], person = false) => {
		for (const source of sources) {
			const target = source.selector ? e.querySelector(source.selector) : e;
			if (!target) continue;
			const name = clean(source.attribute ? (target.getAttribute(source.attribute) ?? "") : (target.textContent ?? ""));
			if (name && !(person && machine?.test(name))) return name;
		}
		return "";
	};
	const w = window as unknown as ProbeWindow;
	w.__botProbeState ??= { keys: new WeakMap(), lines: new WeakMap(), seq: 0, observer: null, pushed: "" };
	const memory = w.__botProbeState;

	// Visible text with what participants wrote cut out (each such region's own text replaced by a
	// separator), so an outcome sentence said in a caption or typed in chat matches no rule. Only the
	// outermost regions are cut, each where it stands (they follow in document order, as their text
	// does): a name cut everywhere would also cut it out of a chat line and leave the rest of the line.
	const participantSelector = table.participantText.join(",");
	const participantRegions = all(table.participantText).filter(
		(region) => visible(region) && !region.parentElement?.closest(participantSelector),
	);
	const textOf = (e: Element) => {
		if (participantRegions.some((region) => region === e || region.contains(e))) return "";
		// biome-ignore lint/performance/useDomNodeTextContent: innerText leaves out hidden screens, which is the point.
		const text = fold((e as HTMLElement).innerText ?? "");
		let kept = "";
		let from = 0;
		for (const region of participantRegions) {
			if (!e.contains(region)) continue;
			// biome-ignore lint/performance/useDomNodeTextContent: the same text innerText put in, to take it out.
			const own = fold((region as HTMLElement).innerText ?? "");
			const at = own ? text.indexOf(own, from) : -1;
			if (at < 0) continue;
			kept += `${text.slice(from, at)} \u241e `;
			from = at + own.length;
		}
		return kept + text.slice(from);
	};
	let pageText: string | null = null;
	const wholePage = () => {
		pageText ??= document.body ? textOf(document.body) : "";
		return pageText;
	};
	const where = fold(location.host + location.pathname);
	const title = fold(document.title);
	const host = location.hostname.toLowerCase();
	const onWeb = location.protocol === "https:" || location.protocol === "http:";
	const listed = (texts: UiTexts | undefined) =>
		Object.values(texts ?? {})
			.flat()
			.map(fold);
	let state: PageState = "unknown";
	for (const rule of table.states) {
		if (rule.admittedForMs !== undefined && (ctx.admittedForMs === null || ctx.admittedForMs < rule.admittedForMs)) continue;
		if (rule.beforeAdmission && ctx.admittedForMs !== null) continue;
		const wanted = listed(rule.texts);
		let byText = false;
		if (wanted.length > 0) {
			const texts = rule.within ? all(rule.within).filter(visible).map(textOf) : [wholePage()];
			byText = texts.some((text) => wanted.some((t) => text.includes(t)));
		}
		const byTitle = title !== "" && listed(rule.titles).some((t) => title.includes(t));
		const bySelector = !byText && !byTitle && all(rule.selectors ?? []).some(visible);
		const byUrl = (rule.urls ?? []).some((u) => where.includes(u.toLowerCase()));
		const offHosts = rule.offHosts ?? [];
		const byHost = onWeb && offHosts.length > 0 && !offHosts.some((h) => host === h || host.endsWith(`.${h}`));
		if (byText || byTitle || bySelector || byUrl || byHost) {
			state = rule.state;
			break;
		}
	}

	// Words only, so a growing line that gains punctuation or capitals still extends itself.
	const words = (s: string) => fold(s).replace(/[^\p{L}\p{N} ]/gu, "");
	const extendsLine = (before: string, after: string) => {
		const [a, b] = [words(before), words(after)];
		let same = 0;
		while (same < a.length && same < b.length && a[same] === b[same]) same++;
		// A live caption revises its last words as it grows; a new line shares little of the old start.
		return same >= Math.min(a.length, b.length) / 2;
	};
	/** `text`: the element may be reused for the next line (`reusedEntry`): one that no longer extends it gets a new key. */
	const captionKey = (e: Element, text?: string) => {
		let key = memory.keys.get(e);
		if (key && text) {
			const before = memory.lines.get(e);
			if (before && !extendsLine(before, text)) key = undefined;
		}
		if (text) memory.lines.set(e, text);
		if (!key) {
			memory.seq += 1;
			key = `c${memory.seq}`;
			memory.keys.set(e, key);
		}
		return key;
	};
	const readCaptions = (): CaptionLine[] => {
		// A hook and its wrapper can both match (Meet's captions region inside its jsname wrapper):
		// the innermost is the region, so no line is read twice and structural layouts start there.
		const matched = all(table.captions.regions);
		const regions = matched.filter((region) => !matched.some((other) => other !== region && region.contains(other)));
		for (const layout of table.captions.layouts) {
			const lines: CaptionLine[] = [];
			for (const region of regions) {
				if (layout.kind === "entries") {
					for (const entry of region.querySelectorAll(layout.entry)) {
						const textEl = layout.text.map((s) => (entry.matches(s) ? entry : entry.querySelector(s))).find((e) => e) ?? null;
						const text = clean(textEl?.textContent ?? "");
						lines.push({
							key: captionKey(entry, layout.reusedEntry ? text : undefined),
							speaker: layout.speaker ? readName(entry, layout.speaker) || null : null,
							text,
						});
					}
				} else {
					let speaker: string | null = null;
					for (const atom of region.querySelectorAll(`${layout.speaker.selector}, ${layout.text}`)) {
						if (atom.matches(layout.speaker.selector)) {
							speaker = readName(atom, [{ ...(layout.speaker.attribute ? { attribute: layout.speaker.attribute } : {}) }]) || null;
						} else {
							lines.push({ key: captionKey(atom), speaker, text: clean(atom.textContent ?? "") });
						}
					}
				}
			}
			if (lines.length > 0) return lines;
		}
		return [];
	};
	const speakers = table.speakers;
	// Teams' voice-level outline is in every tile; only the speaker's is lit: opaque, with a blue border.
	const lit = (e: Element, pseudo: string | undefined) => {
		const style = getComputedStyle(e, pseudo ?? null);
		const rgb = (style.borderTopColor.match(/\d+(\.\d+)?/g) ?? []).map(Number);
		const [r = 0, g = 0, b = 0] = rgb;
		return style.opacity === "1" && b > 180 && b > r + 40 && b > g + 40 && r < 150 && g < 150;
	};
	const highlighted = (tile: Element) =>
		(speakers.highlighted ?? []).some(({ selector, pseudo }) =>
			[...(tile.matches(selector) ? [tile] : []), ...tile.querySelectorAll(selector)].some((e) => lit(e, pseudo)),
		);
	const readSpeakers = () => [
		...new Set(
			all(speakers.tiles)
				.filter((tile) => speakers.speaking.some((s) => tile.matches(s) || tile.querySelector(s) !== null) || highlighted(tile))
				.map((tile) => readName(tile, speakers.name, true))
				.filter((name) => name !== ""),
		),
	];
	const captions = readCaptions();

	if (ctx.watchCaptions && !memory.observer && typeof w.__botCaptionsChanged === "function") {
		const push = w.__botCaptionsChanged;
		memory.pushed = JSON.stringify(captions);
		// Who speaks as the line shows: the speaker of a line the platform shows without a name (Zoom).
		const regionSelector = table.captions.regions.join(",");
		const inRegion = (node: Node) => (node instanceof Element ? node : node.parentElement)?.closest(regionSelector) != null;
		// A region mounted or unmounted whole (Teams mounts its captions only once someone speaks).
		const holdsRegion = (node: Node) =>
			node instanceof Element && (node.matches(regionSelector) || node.querySelector(regionSelector) !== null);
		memory.observer = new MutationObserver((records) => {
			const touched = records.some(
				(r) => inRegion(r.target) || [...r.addedNodes].some(holdsRegion) || [...r.removedNodes].some(holdsRegion),
			);
			if (!touched) return;
			const lines = JSON.stringify(readCaptions());
			if (lines === memory.pushed) return;
			memory.pushed = lines;
			push(JSON.stringify({ captions: JSON.parse(lines), activeSpeakers: readSpeakers() }));
		});
		memory.observer.observe(document, { subtree: true, childList: true, characterData: true });
	}

	const activeSpeakers = readSpeakers();
	const people = table.participants;
	const notPeople = (people.notPeople ?? []).map(fold);
	const isSelf = (item: Element) => people.self.some((s) => item.matches(s) || item.querySelector(s) !== null);
	const selfIds = new Set<string>();
	if (people.selfId) {
		for (const marker of all(people.self)) {
			const id = marker.closest(people.items.join(","))?.getAttribute(people.selfId);
			if (id) selfIds.add(id);
		}
	}
	const participants = all(people.items)
		.filter((item) => !people.visibleOnly || visible(item))
		.filter((item) => !isSelf(item) && !(people.selfId && selfIds.has(item.getAttribute(people.selfId) ?? "")))
		.map((item) => readName(item, people.name, true))
		.filter((name) => name !== "" && name !== clean(ctx.botName) && !notPeople.some((junk) => fold(name).includes(junk)));
	let lastSender = "";
	const chat = all(table.chat.messages).flatMap((message) => {
		const textEl = table.chat.text.map((s) => message.querySelector(s)).find((e) => e) ?? null;
		const text = clean(textEl?.textContent ?? "");
		// An element with a message id but no text (a pin button) is not a message.
		if (!text) return [];
		let sender = "";
		for (const source of table.chat.sender) {
			const holder = source.closest ? message.closest(source.closest) : message;
			sender = holder ? readName(holder, [source]) : "";
			if (sender) break;
		}
		if (!sender && table.chat.inheritSender) sender = lastSender;
		lastSender = sender;
		return [{ sender, text }];
	});
	return { state, captions, activeSpeakers, participants: [...new Set(participants)], chat };
}

/** One reading of the page with its platform's table. */
export function readSnapshot(page: Page, table: ProbeTable, ctx: ProbeContext): Promise<MeetingSnapshot> {
	return page.evaluate(probePage, table, ctx);
}

/** The caption lines on screen when one changed, and who the tiles showed speaking at that moment. */
export interface CaptionChange {
	captions: CaptionLine[];
	activeSpeakers: string[];
}

/**
 * Caption changes from the page as they happen: `onChange` gets every caption line on screen
 * each time one changes (the reader's own keys, as in a snapshot). Registered before the meeting
 * page opens; the reader starts watching once a snapshot asks it to (`watchCaptions`).
 */
export async function captionFeed(page: Page, onChange: (change: CaptionChange) => void): Promise<void> {
	await page.exposeFunction(CAPTIONS_BINDING, (json: string) => {
		let change: { captions?: unknown; activeSpeakers?: unknown };
		try {
			change = JSON.parse(json);
		} catch {
			return;
		}
		if (!Array.isArray(change.captions) || !Array.isArray(change.activeSpeakers)) return;
		onChange({
			captions: change.captions.filter(isCaptionLine),
			activeSpeakers: change.activeSpeakers.filter((name): name is string => typeof name === "string"),
		});
	});
}

function isCaptionLine(value: unknown): value is CaptionLine {
	if (typeof value !== "object" || value === null) return false;
	const line = value as Record<string, unknown>;
	return typeof line.key === "string" && typeof line.text === "string" && (line.speaker === null || typeof line.speaker === "string");
}
