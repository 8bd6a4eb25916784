// Sandbox meeting runtime, shared by the three platform pages. It talks to the sandbox server
// (ask to join, poll the phase, leave, report chat and media), plays the scenario's
// participants with real audio, and calls the page's platform "skin" to draw the DOM.
// Served after its parts (runtime-automation.js, runtime-voices.js, runtime-media.js) as one
// script in one scope (sandbox/server.ts RUNTIME_PARTS); this part publishes window.Sandbox.

const root = document.documentElement;
const meetingId = root.dataset.meetingId;
const base = `/__sandbox/meetings/${encodeURIComponent(meetingId)}`;
const state = {
	skin: null,
	attendeeId: null,
	phase: "prejoin",
	botName: "",
	micOn: true,
	cameraOn: true,
	captionsOn: false,
	// Scenario `captions_unreadable`, until the control API's `restore_captions`.
	captionsUnreadable: false,
	scenario: null,
	localStream: null,
	audio: null,
	timers: [],
	present: new Set(),
};

const post = (path, body) =>
	fetch(base + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
const later = (ms, fn) => state.timers.push(setTimeout(fn, ms));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The platform pages ask for the camera and microphone on the pre-join screen, like the real ones.
const openLocalMedia = async () => {
	try {
		state.localStream = await navigator.mediaDevices.getUserMedia({ audio: true, video: true });
		state.skin?.showPreview?.(state.localStream);
	} catch (err) {
		console.warn("sandbox: no local media", err);
	}
};

const runCall = (scenario) => {
	state.skin.addParticipant({ id: "self", name: state.botName, self: true });
	scenario.participants.forEach((p, index) => {
		const id = `p${index + 1}`;
		later(p.join_after_ms, () => {
			state.present.add(id);
			if (p.camera_on) cameraOf(id, p.name, index);
			state.skin.addParticipant({ id, name: p.name, self: false, camera: p.camera_on, initials: initialsOf(p.name) });
		});
		if (p.leave_after_ms !== null)
			later(p.leave_after_ms, () => {
				state.present.delete(id);
				state.skin.setSpeaking(id, p.name, false);
				if (activeSpeaker?.id === id) setActiveSpeaker(null);
				state.skin.removeParticipant({ id, name: p.name });
				dropCamera(id);
			});
	});
	for (const m of scenario.chat) later(m.after_ms, () => state.skin.chatMessage({ sender: m.sender, text: m.text, self: false }));
	runSpeech(scenario).catch((err) => console.error("sandbox speech failed", err));
	watchMedia();
};

const enterPhase = (phase) => {
	if (phase === state.phase) return;
	state.phase = phase;
	if (phase !== "in_call") {
		for (const t of state.timers.splice(0)) clearTimeout(t);
		stopCameras();
	}
	if (phase !== "lobby" && phase !== "in_call") state.audio?.ctx.close().catch(() => {});
	if (phase === "blocked") return showBlocked();
	if (phase !== "in_call") endPresentation();
	state.skin.renderPhase(phase);
	if (phase === "in_call") runCall(state.scenario);
};

const pollPhase = async () => {
	const attendee = state.attendeeId;
	while ((state.phase === "lobby" || state.phase === "in_call") && state.attendeeId === attendee) {
		try {
			const res = await fetch(`${base}/attendees/${attendee}/phase`);
			const view = await res.json();
			// A reply about an attendee the page has dropped since means nothing now.
			if (state.attendeeId === attendee) {
				state.captionsUnreadable = view.captions_unreadable === true;
				enterPhase(view.phase);
			}
		} catch {
			// The sandbox restarting is not a meeting outcome; keep polling.
		}
		await sleep(150);
	}
};

// In-call microphone and camera switches, so the meeting's record shows when the bot was live.
const reportDevices = () => {
	if (!state.attendeeId || (state.phase !== "in_call" && state.phase !== "lobby")) return;
	post(`/attendees/${state.attendeeId}/devices`, { mic_on: state.micOn, camera_on: state.cameraOn }).catch(() => {});
};

window.Sandbox = {
	start(skin) {
		state.skin = skin;
		// A link to no meeting shows the platform's not-found screen straight away, as the real sites do.
		if (root.dataset.meetingState === "not_found") return enterPhase("not_found");
		openLocalMedia();
	},
	get phase() {
		return state.phase;
	},
	setMic(on) {
		state.micOn = on;
		for (const t of state.localStream?.getAudioTracks() ?? []) t.enabled = on;
		reportDevices();
	},
	setCamera(on) {
		state.cameraOn = on;
		for (const t of state.localStream?.getVideoTracks() ?? []) t.enabled = on;
		reportDevices();
	},
	setCaptions(on) {
		state.captionsOn = on;
	},
	// `trigger`: the click that asked, from a page that checks for automation (scenario `bot_detection`).
	async ask({ name, passcode, trigger }) {
		state.botName = name;
		const res = await post("/ask", {
			name,
			platform: root.dataset.platform,
			mic_on: state.micOn,
			camera_on: state.cameraOn,
			passcode: passcode ?? null,
			automation: trigger ? automationSignals(trigger) : [],
		});
		const body = await res.json();
		state.attendeeId = body.attendee_id;
		state.scenario = body.scenario;
		state.captionsUnreadable = body.scenario.captions_unreadable === true;
		state.phase = "asking";
		enterPhase(body.phase);
		pollPhase();
		// The lobby connection drops once: the meeting forgets this request, the page offers Join again.
		const dropAfter = body.scenario.lobby_drop_after_ms;
		if (dropAfter !== null && !state.droppedOnce) {
			state.droppedOnce = true;
			setTimeout(() => {
				if (state.phase !== "lobby") return;
				const dropped = state.attendeeId;
				state.attendeeId = null;
				state.phase = "prejoin";
				post(`/attendees/${dropped}/leave`).catch(() => {});
				state.skin.lobbyDropped?.();
			}, dropAfter);
		}
	},
	async leave() {
		if (state.attendeeId) await post(`/attendees/${state.attendeeId}/leave`);
		enterPhase("left");
	},
	/** The page's share control got a stream from getDisplayMedia: present it; `onEnded` when it stops. */
	present,
	/** A <video> playing a participant's camera for a tile, or null when that camera is off (runtime-video.js). */
	cameraVideo,
	/** The participant who holds the speaker view now (the last one who started speaking), or null. */
	get activeSpeaker() {
		return activeSpeaker?.id ?? null;
	},
	/** The page's own stop control: a track the page stops fires no `ended`, so the presentation ends here. */
	stopPresenting() {
		for (const t of presentation?.stream.getTracks() ?? []) t.stop();
		endPresentation();
	},
	async sendChat(text) {
		state.skin.chatMessage({ sender: state.botName, text, self: true });
		await post("/chat", { sender: state.botName, text });
	},
};
