/** What every transcription engine adapter offers the bot (docs/speech.md, issue 36's plan). */
export interface SpeechEngine {
	/** Meeting audio, 16 kHz mono PCM16; `endMs` is the call offset of its last sample. */
	push(pcm: Buffer, endMs: number): void;
	/** Finish what is open and wait for what is in flight (drafts confirmed or dropped). */
	flush(): Promise<void>;
	/** Language changes live (PUT /bots/.../config). */
	language: string | null;
	/** Set on engines that can translate (the OpenAI-compatible one); the others have none. */
	task?: "transcribe" | "translate";
}
