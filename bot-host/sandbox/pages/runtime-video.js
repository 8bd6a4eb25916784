// biome-ignore-all lint/correctness/noUnusedVariables: its declarations are used by the other runtime parts, in the one served scope
// A part of the sandbox pages' runtime (runtime.js), served with the other parts as one script in one scope
// (sandbox/server.ts RUNTIME_PARTS): its top level only declares, and what it uses from the others is read when called.
//
// The participants' cameras: each one a small canvas of its own hue with its name and a bar that
// moves every frame, captured as a MediaStream that the skin's tiles play in <video> elements, as
// the real pages play each remote video track. Pictures are small and drawn by one timer for the
// whole page, which stops when the page leaves the call: several bots share one small machine.

const CAMERA = { width: 320, height: 180, fps: 15 };
const cameras = new Map();
let cameraTimer = null;

// Far-apart hues (the golden angle) so every two participants' pictures differ at a glance.
const hueOf = (index) => Math.round((index * 137.508) % 360);

const drawCameras = () => {
	for (const camera of cameras.values()) {
		const { g, hue, name } = camera;
		const frame = camera.frame++;
		g.fillStyle = `hsl(${hue} 70% 45%)`;
		g.fillRect(0, 0, CAMERA.width, CAMERA.height);
		// A bar sweeping across, so consecutive frames differ everywhere along the picture.
		g.fillStyle = `hsl(${(hue + 180) % 360} 80% 80%)`;
		g.fillRect((frame * 8) % CAMERA.width, 0, 24, CAMERA.height);
		g.fillStyle = "#fff";
		g.fillText(name, 12, CAMERA.height / 2 + 8);
		g.fillText(String(frame), 12, 24);
	}
};

/** The camera of scenario participant `index` (0-based), made on first use; drawing runs while any exists. */
const cameraOf = (id, name, index) => {
	let camera = cameras.get(id);
	if (camera) return camera;
	const canvas = Object.assign(document.createElement("canvas"), { width: CAMERA.width, height: CAMERA.height });
	const g = canvas.getContext("2d", { alpha: false });
	g.font = "bold 20px sans-serif";
	camera = { canvas, g, name, hue: hueOf(index), frame: 0, stream: canvas.captureStream(CAMERA.fps) };
	cameras.set(id, camera);
	drawCameras();
	cameraTimer ??= setInterval(drawCameras, 1000 / CAMERA.fps);
	return camera;
};

const dropCamera = (id) => {
	const camera = cameras.get(id);
	if (!camera) return;
	cameras.delete(id);
	for (const track of camera.stream.getTracks()) track.stop();
	if (cameras.size === 0) stopCameras();
};

const stopCameras = () => {
	clearInterval(cameraTimer);
	cameraTimer = null;
	for (const camera of cameras.values()) for (const track of camera.stream.getTracks()) track.stop();
	cameras.clear();
};
addEventListener("pagehide", stopCameras);

/** A <video> playing participant `id`'s camera (one per tile that shows it), or null when its camera is off. */
const cameraVideo = (id) => {
	const camera = cameras.get(id);
	if (!camera) return null;
	const video = document.createElement("video");
	video.autoplay = true;
	video.muted = true;
	video.playsInline = true;
	video.srcObject = camera.stream;
	video.play().catch(() => {});
	return video;
};

/** Initials as the platforms draw them on a tile whose camera is off: first letters of the first two words. */
const initialsOf = (name) =>
	name
		.split(/\s+/)
		.filter(Boolean)
		.slice(0, 2)
		.map((word) => word[0].toUpperCase())
		.join("");

// The active speaker: the last participant who started speaking, kept until another does or they
// leave, as the platforms' speaker views keep the last one heard. Each change goes to the
// meeting's record as it happens, so a test can line a recording's frames up with it.
let activeSpeaker = null;
const setActiveSpeaker = (participant) => {
	if ((activeSpeaker?.id ?? null) === (participant?.id ?? null)) return;
	activeSpeaker = participant;
	state.skin.setActiveSpeaker?.(participant?.id ?? null);
	if (state.attendeeId)
		post(`/attendees/${state.attendeeId}/active_speaker`, { speaker: participant?.name ?? null, at: Date.now() }).catch(() => {});
};
