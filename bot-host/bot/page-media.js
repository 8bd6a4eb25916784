// Injected into every bot page before the platform's own scripts (evaluateOnNewDocument).
// 1. A virtual microphone and camera: getUserMedia returns a WebAudio destination (speech is
//    played into it) and a canvas stream (avatar or shared content), never a real device.
// 2. Meeting audio capture: every media element playing a remote stream is mixed at 16 kHz
//    mono and handed to the bot host in chunks through the exposed __botAudioChunk binding
//    (only the platform's own mix where it sends one beside redundant tracks: Teams).
// 3. Meeting audio level: once in the call, whether or not the audio is captured, how long
//    people were heard, sent about once a second through the __botHeard binding.
// 4. A virtual screen: getDisplayMedia returns a canvas stream of its own (shared content), so
//    the platform's share control presents it with no browser picker while the camera keeps
//    the avatar.
(() => {
	if (window.__bot) return;
	const virtualTracks = new WeakSet();
	let mic = null;
	let camera = null;

	const micGraph = () => {
		if (mic) return mic;
		const ctx = new AudioContext();
		const destination = ctx.createMediaStreamDestination();
		for (const t of destination.stream.getAudioTracks()) virtualTracks.add(t);
		mic = { ctx, destination, playing: null };
		return mic;
	};

	/** An image or video frame centred on the canvas: filling it (`cover`) or whole (`contain`). */
	const drawFitted = (g, canvas, source, fit) => {
		const w = source.videoWidth || source.naturalWidth || source.width;
		const h = source.videoHeight || source.naturalHeight || source.height;
		if (!w || !h) return;
		const scale = (fit === "cover" ? Math.max : Math.min)(canvas.width / w, canvas.height / h);
		g.drawImage(source, (canvas.width - w * scale) / 2, (canvas.height - h * scale) / 2, w * scale, h * scale);
	};

	/** A canvas and its 5 fps stream, `paint`ed every 200 ms: a canvas stream only produces frames when drawn. */
	const paintedCanvas = (width, height, paint) => {
		const canvas = document.createElement("canvas");
		canvas.width = width;
		canvas.height = height;
		const g = canvas.getContext("2d");
		setInterval(() => paint(g, canvas), 200);
		return canvas.captureStream(5);
	};

	const cameraGraph = () => {
		if (camera) return camera;
		// Keep painting while something is shown; the idle frame once.
		let idlePainted = false;
		const stream = paintedCanvas(1280, 720, (g, canvas) => {
			const { source } = camera;
			if (!source && !camera.label && idlePainted) return;
			idlePainted = !source && !camera.label;
			g.fillStyle = "#1f2430";
			g.fillRect(0, 0, canvas.width, canvas.height);
			if (source) {
				// An avatar fills the frame; shared content is shown whole.
				drawFitted(g, canvas, source, camera.fit);
			} else if (camera.label) {
				g.fillStyle = "#e8eaed";
				g.font = "bold 120px sans-serif";
				g.textAlign = "center";
				g.fillText(camera.label, canvas.width / 2, canvas.height / 2 + 40);
			}
		});
		for (const t of stream.getVideoTracks()) virtualTracks.add(t);
		camera = { stream, source: null, fit: "contain", label: "" };
		return camera;
	};

	const original = navigator.mediaDevices?.getUserMedia?.bind(navigator.mediaDevices);
	if (navigator.mediaDevices) {
		navigator.mediaDevices.getUserMedia = async (constraints = {}) => {
			const tracks = [];
			if (constraints.audio)
				tracks.push(
					...micGraph()
						.destination.stream.getAudioTracks()
						.map((t) => t.clone()),
				);
			if (constraints.video)
				tracks.push(
					...cameraGraph()
						.stream.getVideoTracks()
						.map((t) => t.clone()),
				);
			for (const t of tracks) virtualTracks.add(t);
			if (tracks.length === 0 && original) return original(constraints);
			return new MediaStream(tracks);
		};
	}

	// The screen has a canvas of its own, painted only while it has something to present.
	let screen = null;
	const screenGraph = () => {
		if (screen) return screen;
		const stream = paintedCanvas(1920, 1080, (g, canvas) => {
			if (!screen.source) return;
			g.fillStyle = "#000000";
			g.fillRect(0, 0, canvas.width, canvas.height);
			drawFitted(g, canvas, screen.source, screen.fit);
		});
		screen = { stream, source: null, fit: "contain", requests: 0, shared: new Set() };
		return screen;
	};

	/** A track of the virtual screen dressed as a real capture of a whole monitor; its clones too. */
	const displayTrack = (track) => {
		virtualTracks.add(track);
		screen.shared.add(track);
		const settings = track.getSettings.bind(track);
		const clone = track.clone.bind(track);
		track.contentHint = "detail";
		Object.defineProperty(track, "label", { value: "screen:0:0", configurable: true });
		track.getSettings = () => ({ ...settings(), displaySurface: "monitor", logicalSurface: true, cursor: "never" });
		track.clone = () => displayTrack(clone());
		return track;
	};

	if (navigator.mediaDevices) {
		navigator.mediaDevices.getDisplayMedia = async () => {
			const s = screenGraph();
			s.requests++;
			// Nothing to present: the answer a person closing the browser's picker gets.
			if (!s.source) throw new DOMException("Permission denied by user", "NotAllowedError");
			return new MediaStream([displayTrack(s.stream.getVideoTracks()[0].clone())]);
		};
	}

	/** An image or a looping muted video, loaded and ready to draw. */
	const loadSource = async (kind, url) => {
		if (kind === "video") {
			const video = document.createElement("video");
			video.muted = true;
			video.loop = true;
			video.crossOrigin = "anonymous";
			video.src = url;
			await video.play();
			return video;
		}
		const image = new Image();
		image.crossOrigin = "anonymous";
		image.src = url;
		await image.decode();
		return image;
	};

	const toBase64 = (bytes) => {
		let binary = "";
		for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
		return btoa(binary);
	};
	const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

	// Remote audio that never reaches a media element (Teams' mainAudio, a Meet variant) comes
	// in through RTCPeerConnection "track" events, with the ids of the streams it arrived in.
	const peerTracks = [];
	const NativePeerConnection = window.RTCPeerConnection;
	if (NativePeerConnection) {
		// A subclass, so `new RTCPeerConnection()` and instanceof checks keep working.
		class Wrapped extends NativePeerConnection {
			constructor(...args) {
				super(...args);
				this.addEventListener("track", (event) => {
					if (event.track.kind === "audio") peerTracks.push({ track: event.track, streams: event.streams.map((s) => s.id) });
				});
			}
		}
		window.RTCPeerConnection = Wrapped;
	}

	// `mainTrack`: the platform sends its own mix of the meeting (a track id starting with it, or a
	// stream id holding it) beside redundant tracks already in that mix, so only the mix is the
	// meeting; with none after `fallbackAfterMs`, every track is (doubled audio beats silence).
	const meetingTracks = (found, options, waitedMs) => {
		if (!options?.mainTrack) return found;
		const prefix = options.mainTrack.toLowerCase();
		const main = found.filter(
			({ track, streams }) => track.id.toLowerCase().startsWith(prefix) || streams.some((id) => id.toLowerCase().includes(prefix)),
		);
		if (main.length > 0) return main;
		return waitedMs < options.fallbackAfterMs ? [] : found;
	};

	let capture = null;
	const startCapture = (options = null) => {
		if (capture) return;
		const ctx = new AudioContext({ sampleRate: 16000 });
		const mixer = ctx.createGain();
		const processor = ctx.createScriptProcessor(4096, 1, 1);
		mixer.connect(processor);
		processor.connect(ctx.destination);
		const connected = new Map();
		const startedAt = performance.now();
		let pending = [];
		let pendingLength = 0;
		processor.onaudioprocess = (event) => {
			const input = event.inputBuffer.getChannelData(0);
			const pcm = new Int16Array(input.length);
			for (let i = 0; i < input.length; i++) pcm[i] = Math.max(-1, Math.min(1, input[i])) * 0x7fff;
			pending.push(pcm);
			pendingLength += pcm.length;
			if (pendingLength >= 8000 && window.__botAudioChunk) {
				const all = new Int16Array(pendingLength);
				let offset = 0;
				for (const part of pending) {
					all.set(part, offset);
					offset += part.length;
				}
				pending = [];
				pendingLength = 0;
				window.__botAudioChunk(toBase64(new Uint8Array(all.buffer)));
			}
		};
		// Each remote track once, whether it is found on an element, a peer connection or both.
		const scan = () => {
			if (ctx.state !== "running") ctx.resume().catch(() => {});
			const found = [...peerTracks];
			for (const el of document.querySelectorAll("audio, video")) {
				const stream = el.srcObject;
				if (!(stream instanceof MediaStream)) continue;
				const audio = stream.getAudioTracks();
				// A stream carrying our own microphone is the self preview, not the meeting.
				if (audio.some((t) => virtualTracks.has(t))) continue;
				found.push(...audio.map((track) => ({ track, streams: [stream.id] })));
			}
			const chosen = meetingTracks(found, options, performance.now() - startedAt);
			const wanted = new Set(chosen.map(({ track }) => track.id));
			// A mix that came after the fallback: the other tracks leave the capture again.
			for (const [id, source] of connected) {
				if (!options?.mainTrack || wanted.has(id)) continue;
				source.disconnect();
				connected.delete(id);
			}
			for (const { track } of chosen) {
				if (connected.has(track.id) || track.readyState === "ended") continue;
				const source = ctx.createMediaStreamSource(new MediaStream([track]));
				source.connect(mixer);
				connected.set(track.id, source);
			}
		};
		capture = { ctx, timer: setInterval(scan, 300) };
		scan();
	};

	// The level of the meeting's remote audio, four readings a second, so the host knows people
	// are talking even when it neither records nor transcribes by audio (bot/caption-watch.ts).
	// Its own small graph: an analyser needs no destination, and nothing is copied out but a number.
	const LEVEL_READ_MS = 250;
	// About -40 dBFS: speech through a platform's noise suppression is well above it, its silence well below.
	const VOICED_RMS = 0.01;
	const remoteAudioTracks = () => {
		const tracks = [...peerTracks];
		for (const el of document.querySelectorAll("audio, video")) {
			const stream = el.srcObject;
			if (!(stream instanceof MediaStream)) continue;
			const audio = stream.getAudioTracks();
			// The self preview carries our own microphone, which is not the meeting.
			if (!audio.some((t) => virtualTracks.has(t))) tracks.push(...audio);
		}
		return tracks.filter((t) => t.readyState !== "ended");
	};
	let levels = null;
	const startLevels = () => {
		if (levels) return;
		// 8 kHz holds the energy of speech, with half the audio thread's wake-ups of 16 kHz.
		const ctx = new AudioContext({ sampleRate: 8000 });
		const analyser = ctx.createAnalyser();
		// 2048 samples at 8 kHz: each reading covers the 256 ms since the one before.
		analyser.fftSize = 2048;
		const samples = new Float32Array(analyser.fftSize);
		const heard = new Set();
		let voicedMs = 0;
		let readings = 0;
		const read = () => {
			if (ctx.state !== "running") ctx.resume().catch(() => {});
			// New remote tracks are looked for once a second: they come and go with participants.
			if (readings++ % 4 === 0)
				for (const track of remoteAudioTracks()) {
					if (heard.has(track.id)) continue;
					heard.add(track.id);
					ctx.createMediaStreamSource(new MediaStream([track])).connect(analyser);
				}
			analyser.getFloatTimeDomainData(samples);
			let sum = 0;
			for (const v of samples) sum += v * v;
			if (Math.sqrt(sum / samples.length) >= VOICED_RMS) voicedMs += LEVEL_READ_MS;
			if (readings % 4 === 0 && voicedMs > 0 && window.__botHeard) {
				window.__botHeard(voicedMs);
				voicedMs = 0;
			}
		};
		levels = { ctx, timer: setInterval(read, LEVEL_READ_MS) };
	};

	window.__bot = {
		startCapture,
		startLevels,
		/** Play audio (any format the browser decodes) into the virtual mic; resolves when done or stopped. */
		async speak(base64) {
			const m = micGraph();
			m.cancelled = false;
			if (m.ctx.state !== "running") await m.ctx.resume();
			const buffer = await m.ctx.decodeAudioData(fromBase64(base64).buffer);
			// A stop that came while the audio was being decoded.
			if (m.cancelled) return "interrupted";
			if (m.playing) {
				m.playing.__stopped = true;
				m.playing.stop();
			}
			const source = m.ctx.createBufferSource();
			source.buffer = buffer;
			source.connect(m.destination);
			m.playing = source;
			return new Promise((resolve) => {
				source.onended = () => {
					const interrupted = source.__stopped === true;
					if (m.playing === source) m.playing = null;
					resolve(interrupted ? "interrupted" : "completed");
				};
				source.start();
			});
		},
		stopSpeaking() {
			if (mic) mic.cancelled = true;
			if (!mic?.playing) return false;
			mic.playing.__stopped = true;
			mic.playing.stop();
			return true;
		},
		/** Show an image, a video or a rendered frame (data or http URL) on the virtual camera or screen; null clears it. */
		async show(kind, url, fit = "contain", feed = "camera") {
			const target = feed === "screen" ? screenGraph() : cameraGraph();
			target.fit = fit;
			target.source = url ? await loadSource(kind, url) : null;
			return true;
		},
		/** The virtual screen as the platform took it: how often it was asked for, and how many of its tracks are live. */
		screenShare() {
			const live = screen ? [...screen.shared].filter((t) => t.readyState === "live").length : 0;
			return { requests: screen?.requests ?? 0, live };
		},
		/**
		 * Ends every shared track as the browser's own "Stop sharing" would: `ended` fires on each,
		 * so the platform stops presenting by itself. Returns how many were live.
		 */
		endScreenShare() {
			let ended = 0;
			for (const track of screen?.shared ?? []) {
				if (track.readyState !== "live") continue;
				track.stop();
				track.dispatchEvent(new Event("ended"));
				ended++;
			}
			screen?.shared.clear();
			return ended;
		},
		setLabel(label) {
			cameraGraph().label = label;
		},
	};
})();
