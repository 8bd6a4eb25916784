// biome-ignore-all lint/correctness/noUnusedVariables: its declarations are used by the other runtime parts, in the one served scope
// A part of the sandbox pages' runtime (runtime.js), served with the other parts as one script in one scope
// (sandbox/server.ts RUNTIME_PARTS): its top level only declares, and what it uses from the others is read when called.
//
// The participants' voices and captions: real audio per line, played as the platform carries it
// (Meet one stream each, Zoom and Teams one mix), with captions growing word by word.

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

// A line as the platform's captions write it (scenario `caption_heard_as`): whole words only.
const heardAs = (text, spellings) =>
	Object.entries(spellings ?? {}).reduce(
		(shown, [said, written]) =>
			shown.replace(new RegExp(`(?<![\\p{L}\\p{N}])${said.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}\\p{N}])`, "gu"), written),
		text,
	);

const speakLine = async (participant, text, buffer, captionText = text) => {
	const { ctx, destinationFor } = audioGraph();
	if (ctx.state !== "running") await ctx.resume().catch(() => {});
	const source = ctx.createBufferSource();
	source.buffer = buffer;
	source.connect(destinationFor(participant.id));
	const words = captionText.split(/\s+/);
	const durationMs = buffer.duration * 1000;
	let caption = state.captionsOn ? startCaption(participant) : null;
	setActiveSpeaker(participant);
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
	if (caption) showCaption(caption, participant.name, captionText);
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
		await speakLine(u.participant, u.text, buffer, heardAs(u.text, scenario.caption_heard_as));
		await sleep(scenario.speech_gap_ms);
	}
};
