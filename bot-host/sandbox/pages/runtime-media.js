// biome-ignore-all lint/correctness/noUnusedVariables: its declarations are used by the other runtime parts, in the one served scope
// A part of the sandbox pages' runtime (runtime.js), served with the other parts as one script in one scope
// (sandbox/server.ts RUNTIME_PARTS): its top level only declares, and what it uses from the others is read when called.
//
// What the meeting hears and sees from the bot: its microphone and camera, and its screen share.

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
