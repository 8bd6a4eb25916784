// Sandbox meeting runtime, shared by the three platform pages. It talks to the sandbox server
// (ask to join, poll the phase, leave, report chat and media), plays the scenario's
// participants with real audio, and calls the page's platform "skin" to draw the DOM.
(() => {
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

	// What a page can see of a scripted browser, for the pages that check who asks to join (Meet:
	// Sandbox.ask's `trigger`). A DevTools click (puppeteer's element.click()) brings the pointer to
	// the button in one mousemove at the point of the click; a hand, and an X pointer driven along a
	// path (bot-host/bot/os-input.ts), arrive through many positions (measured in
	// bot-host/test/os-input.test.ts). The way to a press is every raw position (coalesced ones
	// included) since the previous release, within the last TRAIL_MS.
	const TRAIL_MS = 3000;
	const MIN_PATH = 5;
	const trail = [];
	let pressPath = null;
	let releasedAt = Number.NEGATIVE_INFINITY;
	const distinct = (points) => new Set(points.map((p) => `${p.x},${p.y}`)).size;
	addEventListener(
		"pointermove",
		(e) => {
			if (!e.isTrusted) return;
			const now = performance.now();
			for (const c of e.getCoalescedEvents?.() ?? [e]) trail.push({ x: c.clientX, y: c.clientY, at: now });
			while (trail.length && now - trail[0].at > TRAIL_MS) trail.shift();
		},
		{ capture: true, passive: true },
	);
	addEventListener(
		"pointerdown",
		(e) => {
			const now = performance.now();
			const since = Math.max(now - TRAIL_MS, releasedAt);
			if (e.isTrusted) pressPath = { at: now, positions: distinct(trail.filter((p) => p.at > since)) };
		},
		{ capture: true, passive: true },
	);
	addEventListener("pointerup", () => (releasedAt = performance.now()), { capture: true, passive: true });
	const automationSignals = (trigger) => {
		const signals = [];
		if (navigator.webdriver) signals.push("navigator.webdriver is true");
		if (/HeadlessChrome/.test(navigator.userAgent)) signals.push("a HeadlessChrome user agent");
		if (!trigger.isTrusted) signals.push("a scripted click");
		else if (trigger.detail > 0) {
			// A pointer click (a key press on the button has detail 0 and no pointer to judge).
			const positions = pressPath && performance.now() - pressPath.at < TRAIL_MS ? pressPath.positions : 0;
			if (positions < MIN_PATH) signals.push(`the pointer came to the button without a path (${positions} position(s) on its way)`);
		}
		return signals;
	};

	// The platform's suspected-automation screen, in place of the whole page (shell.ts names its title).
	const showBlocked = () => {
		const screen = document.createElement("div");
		screen.id = "sandbox-blocked";
		screen.setAttribute("role", "main");
		const title = document.createElement("h1");
		title.textContent = root.dataset.automationBlock ?? "";
		const back = document.createElement("button");
		back.textContent = "Return to home screen";
		screen.append(title, back);
		document.body.prepend(screen);
		root.setAttribute("data-blocked", "");
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

	const audioGraph = () => {
		if (state.audio) return state.audio;
		const ctx = new AudioContext();
		const streams = new Map();
		// Meet: one media element per remote stream; Zoom and Teams: one server mix.
		const play = (stream, key, { muted = false, ids = null } = {}) => {
			const el = document.createElement("audio");
			el.autoplay = true;
			el.muted = muted;
			el.dataset.sandboxStream = key;
			document.body.appendChild(el);
			const attach = (remote) => {
				el.srcObject = remote;
				el.play().catch(() => {});
			};
			// Through a real WebRTC loopback, so the page sees a remote track as on Teams.
			if (state.skin.peerAudio) loopback(stream, attach, ids);
			else attach(stream);
		};
		const destinationFor = (participantId) => {
			const key = state.skin.mixedAudio ? "mix" : participantId;
			let bus = streams.get(key);
			if (!bus) {
				bus = ctx.createGain();
				streams.set(key, bus);
				const dest = ctx.createMediaStreamDestination();
				bus.connect(dest);
				play(dest.stream, key, { ids: state.skin.mainAudio ?? null });
				// A redundant track carrying the mix again (Teams), marked by a quiet tone; received, not played.
				const redundant = state.skin.redundantAudio;
				if (redundant) {
					const copy = ctx.createMediaStreamDestination();
					bus.connect(copy);
					const tone = ctx.createOscillator();
					const level = ctx.createGain();
					tone.frequency.value = redundant.toneHz;
					level.gain.value = 0.05;
					tone.connect(level).connect(copy);
					tone.start();
					play(copy.stream, `${key}-redundant`, { muted: true });
				}
			}
			return bus;
		};
		state.audio = { ctx, destinationFor };
		return state.audio;
	};

	// `ids`: the stream and track ids the receiving side sees (the platform's own names, Teams' `mainAudio`).
	const loopback = async (stream, onRemote, ids = null) => {
		const sender = new RTCPeerConnection();
		const receiver = new RTCPeerConnection();
		sender.onicecandidate = (e) => e.candidate && receiver.addIceCandidate(e.candidate).catch(() => {});
		receiver.onicecandidate = (e) => e.candidate && sender.addIceCandidate(e.candidate).catch(() => {});
		receiver.ontrack = (e) => onRemote(e.streams[0] ?? new MediaStream([e.track]));
		for (const track of stream.getAudioTracks()) sender.addTrack(track, stream);
		await sender.setLocalDescription(await sender.createOffer());
		const offer = sender.localDescription;
		const sdp = ids ? offer.sdp.replace(/msid:\S+ \S+/g, `msid:${ids.stream} ${ids.track}`) : offer.sdp;
		await receiver.setRemoteDescription({ type: "offer", sdp });
		await receiver.setLocalDescription(await receiver.createAnswer());
		await sender.setRemoteDescription(receiver.localDescription);
	};

	const loadLine = async (text) => {
		const res = await fetch(`/__sandbox/speech.wav?text=${encodeURIComponent(text)}`);
		const bytes = await res.arrayBuffer();
		return audioGraph().ctx.decodeAudioData(bytes);
	};

	// Captions the platform shows where no driver looks (scenario `captions_unreadable`), for every
	// platform alike: the skin draws nothing, the runtime draws the line in a box of its own whose
	// classes are new on every page, so no hook can match it while the screen still shows it.
	const unreadableText = new WeakMap();
	let unreadableBox = null;
	const unreadableCaption = (name) => {
		const fresh = () => `c${Math.random().toString(36).slice(2, 10)}`;
		if (!unreadableBox) {
			unreadableBox = document.createElement("div");
			unreadableBox.className = fresh();
			unreadableBox.style.cssText = "position:fixed;left:0;right:0;bottom:48px;text-align:center;background:#000a;color:#fff";
			document.body.append(unreadableBox);
		}
		const line = document.createElement("div");
		const text = document.createElement("span");
		line.append(`${name}: `, text);
		unreadableBox.append(line);
		while (unreadableBox.children.length > 3) unreadableBox.firstElementChild.remove();
		unreadableText.set(line, text);
		return line;
	};
	const startCaption = (participant) =>
		state.captionsUnreadable ? unreadableCaption(participant.name) : state.skin.captionStart(participant.id, participant.name);

	// When each caption text was first on screen, for latency measurements.
	const captionLog = [];
	const lastShown = new WeakMap();
	const showCaption = (caption, speaker, text) => {
		if (lastShown.get(caption) === text) return;
		lastShown.set(caption, text);
		const own = unreadableText.get(caption);
		if (own) own.textContent = text;
		else state.skin.captionUpdate(caption, text);
		captionLog.push({ speaker, text, at: Date.now() });
	};

	const speakLine = async (participant, text, buffer) => {
		const { ctx, destinationFor } = audioGraph();
		if (ctx.state !== "running") await ctx.resume().catch(() => {});
		const source = ctx.createBufferSource();
		source.buffer = buffer;
		source.connect(destinationFor(participant.id));
		const words = text.split(/\s+/);
		const durationMs = buffer.duration * 1000;
		let caption = state.captionsOn ? startCaption(participant) : null;
		state.skin.setSpeaking(participant.id, participant.name, true);
		source.start();
		// Captions grow word by word in place while the line is heard, like the live ones;
		// turned on mid-line, they start showing from there.
		const started = performance.now();
		while (performance.now() - started < durationMs) {
			const shown = Math.max(1, Math.ceil((words.length * (performance.now() - started)) / durationMs));
			if (!caption && state.captionsOn) caption = startCaption(participant);
			if (caption) showCaption(caption, participant.name, words.slice(0, shown).join(" "));
			await sleep(150);
		}
		if (!caption && state.captionsOn) caption = startCaption(participant);
		if (caption) showCaption(caption, participant.name, text);
		state.skin.setSpeaking(participant.id, participant.name, false);
		if (caption && !unreadableText.has(caption)) state.skin.captionEnd?.(caption);
	};

	const runSpeech = async (scenario) => {
		const queue = [];
		const longest = Math.max(0, ...scenario.participants.map((p) => p.lines.length));
		for (let i = 0; i < longest; i++) {
			scenario.participants.forEach((p, index) => {
				if (p.lines[i]) queue.push({ participant: { id: `p${index + 1}`, name: p.name, spec: p }, text: p.lines[i] });
			});
		}
		// Each line's audio is fetched while the one before it plays: decoded ahead all at once, a
		// long scenario would hold minutes of audio in the page, which no real meeting page does.
		const load = (i) => {
			const loading = i < queue.length ? loadLine(queue[i].text) : null;
			loading?.catch(() => {});
			return loading;
		};
		let next = load(0);
		await sleep(scenario.speech_start_ms);
		for (let i = 0; i < queue.length; i++) {
			const buffer = await next;
			next = load(i + 1);
			if (state.phase !== "in_call") return;
			const u = queue[i];
			if (!state.present.has(u.participant.id)) continue;
			await speakLine(u.participant, u.text, buffer);
			await sleep(scenario.speech_gap_ms);
		}
	};

	const runCall = (scenario) => {
		state.skin.addParticipant({ id: "self", name: state.botName, self: true });
		scenario.participants.forEach((p, index) => {
			const id = `p${index + 1}`;
			later(p.join_after_ms, () => {
				state.present.add(id);
				state.skin.addParticipant({ id, name: p.name, self: false });
			});
			if (p.leave_after_ms !== null)
				later(p.leave_after_ms, () => {
					state.present.delete(id);
					state.skin.setSpeaking(id, p.name, false);
					state.skin.removeParticipant({ id, name: p.name });
				});
		});
		for (const m of scenario.chat) later(m.after_ms, () => state.skin.chatMessage({ sender: m.sender, text: m.text, self: false }));
		runSpeech(scenario).catch((err) => console.error("sandbox speech failed", err));
		watchMedia();
	};

	/**
	 * A 64x36 PNG of the video's current frame and its average colour, which lets a test check
	 * what the bot showed without decoding images.
	 */
	const sampleFrame = (video, canvas) => {
		const g = canvas.getContext("2d");
		g.drawImage(video, 0, 0, canvas.width, canvas.height);
		const px = g.getImageData(0, 0, canvas.width, canvas.height).data;
		const sum = [0, 0, 0];
		for (let i = 0; i < px.length; i += 4) for (let c = 0; c < 3; c++) sum[c] += px[i + c];
		return { frame: canvas.toDataURL("image/png"), color: sum.map((v) => Math.round(v / (px.length / 4))) };
	};
	const thumbnail = () => Object.assign(document.createElement("canvas"), { width: 64, height: 36 });

	// What the meeting "hears and sees" from the bot: mic level windows and camera frames.
	const watchMedia = () => {
		const stream = state.localStream;
		if (!stream) return;
		const { ctx } = audioGraph();
		const analyser = ctx.createAnalyser();
		analyser.fftSize = 2048;
		const audioTracks = stream.getAudioTracks();
		if (audioTracks.length) ctx.createMediaStreamSource(new MediaStream(audioTracks)).connect(analyser);
		const samples = new Float32Array(analyser.fftSize);
		let pending = { windows: 0, voiced: 0, peak: 0 };
		// What the meeting heard from the bot's microphone, recorded at 16 kHz while it was on.
		let micPcm = [];
		if (audioTracks.length) {
			const recorder = new AudioContext({ sampleRate: 16000 });
			const tap = recorder.createScriptProcessor(4096, 1, 1);
			recorder.createMediaStreamSource(new MediaStream(audioTracks)).connect(tap);
			tap.connect(recorder.destination);
			tap.onaudioprocess = (event) => {
				if (state.phase !== "in_call" || !state.micOn) return;
				const input = event.inputBuffer.getChannelData(0);
				const pcm = new Int16Array(input.length);
				for (let i = 0; i < input.length; i++) pcm[i] = Math.max(-1, Math.min(1, input[i])) * 0x7fff;
				micPcm.push(pcm);
			};
		}
		const takeMicPcm = () => {
			const length = micPcm.reduce((n, p) => n + p.length, 0);
			if (length === 0) return null;
			const all = new Int16Array(length);
			let offset = 0;
			for (const p of micPcm) {
				all.set(p, offset);
				offset += p.length;
			}
			micPcm = [];
			let binary = "";
			const bytes = new Uint8Array(all.buffer);
			for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
			return btoa(binary);
		};
		const micTimer = setInterval(() => {
			if (state.phase !== "in_call" || !state.micOn || !audioTracks.length) return;
			analyser.getFloatTimeDomainData(samples);
			let sum = 0;
			for (const s of samples) sum += s * s;
			const rms = Math.sqrt(sum / samples.length);
			pending.windows++;
			if (rms > 0.01) pending.voiced++;
			pending.peak = Math.max(pending.peak, rms);
		}, 100);
		const video = document.createElement("video");
		video.muted = true;
		video.srcObject = new MediaStream(stream.getVideoTracks());
		video.play().catch(() => {});
		const canvas = thumbnail();
		const flush = setInterval(() => {
			const body = { mic: pending, mic_pcm: takeMicPcm(), camera_frame: null, camera_color: null, captions: captionLog.splice(0) };
			pending = { windows: 0, voiced: 0, peak: 0 };
			if (state.phase === "in_call" && state.cameraOn && stream.getVideoTracks().length && video.readyState >= 2) {
				const sample = sampleFrame(video, canvas);
				body.camera_frame = sample.frame;
				body.camera_color = sample.color;
			}
			if (body.mic.windows || body.mic_pcm || body.camera_frame || body.captions.length)
				post(`/attendees/${state.attendeeId}/media`, body).catch(() => {});
			if (state.phase !== "in_call" && state.phase !== "lobby") {
				clearInterval(micTimer);
				clearInterval(flush);
			}
		}, 1000);
	};

	const enterPhase = (phase) => {
		if (phase === state.phase) return;
		state.phase = phase;
		if (phase !== "in_call") for (const t of state.timers.splice(0)) clearTimeout(t);
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

	/**
	 * The bot's screen share as the meeting sees it: one presentation at a time, its frames
	 * sampled once a second like the camera's, until its track ends (the browser's own "Stop
	 * sharing") or the page's stop control stops it.
	 */
	let presentation = null;
	const endPresentation = () => {
		const p = presentation;
		if (!p) return;
		presentation = null;
		clearInterval(p.timer);
		p.video.srcObject = null;
		if (state.attendeeId) post(`/attendees/${state.attendeeId}/screen`, { presenting: false, frame: null, color: null }).catch(() => {});
		p.onEnded?.();
	};
	const present = (stream, onEnded) => {
		endPresentation();
		const track = stream.getVideoTracks()[0];
		if (!track || !state.attendeeId) return;
		const video = Object.assign(document.createElement("video"), { muted: true, srcObject: stream });
		video.play().catch(() => {});
		const canvas = thumbnail();
		const attendee = state.attendeeId;
		const report = (body) => post(`/attendees/${attendee}/screen`, body).catch(() => {});
		report({ presenting: true, frame: null, color: null });
		const timer = setInterval(() => {
			if (track.readyState !== "live" || video.readyState < 2) return;
			const sample = sampleFrame(video, canvas);
			report({ presenting: true, frame: sample.frame, color: sample.color });
		}, 1000);
		presentation = { stream, video, timer, onEnded };
		track.addEventListener("ended", () => {
			if (presentation?.stream === stream) endPresentation();
		});
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
})();
