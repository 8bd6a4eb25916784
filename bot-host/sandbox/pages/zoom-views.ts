/**
 * The sandbox Zoom page's views of the call (zoom.ts holds the page and the rest of its script):
 * Gallery View, where the call opens, and Speaker View, each frame playing its participant's
 * video. Runs in the page inside zoom.ts's script, sharing its names (roster, Sandbox, el, $).
 */
export const ZOOM_VIEWS_SKIN = `
// Gallery View first (older V: the active-speaker frames are not drawn there at all); Speaker View
// draws the active speaker's frame (the last one who spoke) and the speaker bar, whose speaking tile is --active.
let lastSpeaker = null;
const speaking = new Set();
const drawSpeakerView = () => {
	const view = $("#speaker-view");
	view.replaceChildren();
	if (view.dataset.on !== "true") return;
	const active = el("div", { class: "speaker-active-container" });
	if (lastSpeaker) active.append(tile("speaker-active-container__video-frame", lastSpeaker));
	const bar = el("div", { class: "speaker-bar-container" });
	for (const [id, name] of roster) {
		const frame = tile("speaker-bar-container__video-frame", { id, name });
		frame.classList.toggle("speaker-bar-container__video-frame--active", speaking.has(id));
		bar.append(frame);
	}
	view.append(active, bar);
};
const setView = (speaker) => {
	$("#speaker-view").dataset.on = String(speaker);
	drawSpeakerView();
	$("#gallery").hidden = speaker;
	$("#to-speaker").setAttribute("aria-checked", String(speaker));
	$("#to-gallery").setAttribute("aria-checked", String(!speaker));
	$("#view-menu").hidden = true;
};
$("#view-button").addEventListener("click", () => { $("#view-menu").hidden = !$("#view-menu").hidden; });
$("#to-speaker").addEventListener("click", () => setView(true));
$("#to-gallery").addEventListener("click", () => setView(false));
// A frame plays its participant's video in a <video-player> holding a <video> (Attendee
// zoom_web_chromedriver_payload.js reads each participant's picture there), one per frame and kept
// across redraws so a picture does not restart; a camera that is off shows the name instead.
const players = new Map();
const cameraOn = new Set();
const playerFor = (slot, id) => {
	const key = slot + ":" + id;
	if (!players.has(key)) {
		const video = Sandbox.cameraVideo(id);
		if (!video) return null;
		const player = el("video-player");
		player.append(video);
		players.set(key, player);
	}
	return players.get(key);
};
const dropPlayers = (id) => { for (const key of [...players.keys()]) if (key.endsWith(":" + id)) players.delete(key); };
const tile = (cls, p) => {
	const frame = el("div", { class: cls + " video-frame", "data-participant": p.id });
	const player = cameraOn.has(p.id) ? playerFor(cls, p.id) : null;
	const avatar = el("div", { class: "video-avatar__avatar" });
	if (!player && !p.self) avatar.append(el("span", { class: "video-avatar__avatar-name" }, p.name));
	const footer = el("div", { class: "video-avatar__avatar-footer" });
	footer.append(el("span", {}, p.name));
	avatar.append(footer);
	if (player) frame.append(player);
	frame.append(avatar);
	return frame;
};
`;
