import { useEffect, useState } from "preact/hooks";
import { request } from "../api";
import {
	type ModelForm,
	type ModelSettings,
	modelBody,
	modelForm,
	type TranscriptionForm,
	type TranscriptionSettings,
	transcriptionBody,
	transcriptionForm,
} from "./forms";
import { SecretField } from "./secret-field";
import { ActionStatus, errorText, useAction } from "./status";

function TextField(props: { id: string; label: string; value: string; hint?: string; onInput: (value: string) => void; type?: string }) {
	return (
		<div class="field">
			<label for={props.id}>{props.label}</label>
			<input
				id={props.id}
				type={props.type ?? "text"}
				value={props.value}
				aria-describedby={props.hint ? `${props.id}-hint` : undefined}
				onInput={(e) => props.onInput(e.currentTarget.value)}
			/>
			{props.hint && <small id={`${props.id}-hint`}>{props.hint}</small>}
		</div>
	);
}

const DEFAULT_HINT = "Empty uses the deployment's default.";

/** The agent's model (docs/agent.md#the-model-and-its-tools): an OpenAI-compatible endpoint. */
export function ModelSection() {
	const [stored, setStored] = useState<ModelSettings | null>(null);
	const [form, setForm] = useState<ModelForm | null>(null);
	const [loadError, setLoadError] = useState("");
	const [state, act] = useAction();

	const show = (settings: ModelSettings) => {
		setStored(settings);
		setForm(modelForm(settings));
	};
	useEffect(() => {
		request<ModelSettings>("GET", "/user/models")
			.then(show)
			.catch((err) => setLoadError(errorText(err)));
	}, []);

	const save = (e: Event) => {
		e.preventDefault();
		if (!form) return;
		void act(async () => {
			show(await request<ModelSettings>("PUT", "/user/models", modelBody(form)));
			return "Model settings saved.";
		});
	};

	return (
		<section aria-labelledby="models-heading" class="settings-card">
			<h2 id="models-heading">Model</h2>
			{loadError && (
				<p role="alert" class="form-error">
					{loadError}
				</p>
			)}
			{stored && form && (
				<form onSubmit={save} noValidate>
					<div class="field">
						<label for="model-mode">Mode</label>
						<select id="model-mode" value={form.mode} onChange={(e) => setForm({ ...form, mode: e.currentTarget.value })}>
							<option value="">Default</option>
							<option value="subscription">subscription</option>
							<option value="custom">custom</option>
						</select>
					</div>
					<TextField
						id="model-base-url"
						label="Base URL"
						type="url"
						value={form.baseUrl}
						hint={`An OpenAI-compatible endpoint, e.g. https://api.openai.com/v1. ${DEFAULT_HINT}`}
						onInput={(baseUrl) => setForm({ ...form, baseUrl })}
					/>
					<TextField
						id="model-name"
						label="Model"
						value={form.model}
						hint={DEFAULT_HINT}
						onInput={(model) => setForm({ ...form, model })}
					/>
					<TextField
						id="model-meeting"
						label="Meeting model"
						value={form.meetingModel}
						hint="The copilot's model; empty uses the model above."
						onInput={(meetingModel) => setForm({ ...form, meetingModel })}
					/>
					<SecretField
						id="model-api-key"
						label="API key"
						noun="API key"
						isSet={stored.api_key_set}
						masked={stored.api_key}
						input={form.apiKey}
						onChange={(apiKey) => setForm({ ...form, apiKey })}
					/>
					<button type="submit" disabled={state.kind === "busy"}>
						Save model settings
					</button>
					<ActionStatus state={state} />
				</form>
			)}
		</section>
	);
}

/** Where the bot's audio is transcribed, and the token for it. */
export function TranscriptionSection() {
	const [stored, setStored] = useState<TranscriptionSettings | null>(null);
	const [form, setForm] = useState<TranscriptionForm | null>(null);
	const [loadError, setLoadError] = useState("");
	const [state, act] = useAction();

	const show = (settings: TranscriptionSettings) => {
		setStored(settings);
		setForm(transcriptionForm(settings));
	};
	useEffect(() => {
		request<TranscriptionSettings>("GET", "/user/transcription")
			.then(show)
			.catch((err) => setLoadError(errorText(err)));
	}, []);

	const save = (e: Event) => {
		e.preventDefault();
		if (!form) return;
		void act(async () => {
			show(await request<TranscriptionSettings>("PUT", "/user/transcription", transcriptionBody(form)));
			return "Transcription settings saved.";
		});
	};

	return (
		<section aria-labelledby="transcription-heading" class="settings-card">
			<h2 id="transcription-heading">Transcription</h2>
			{loadError && (
				<p role="alert" class="form-error">
					{loadError}
				</p>
			)}
			{stored && form && (
				<form onSubmit={save} noValidate>
					<TextField
						id="transcription-url"
						label="Transcription URL"
						type="url"
						value={form.url}
						hint={DEFAULT_HINT}
						onInput={(url) => setForm({ ...form, url })}
					/>
					<SecretField
						id="transcription-token"
						label="Token"
						isSet={stored.token_set}
						masked={stored.token}
						input={form.token}
						onChange={(token) => setForm({ ...form, token })}
					/>
					<button type="submit" disabled={state.kind === "busy"}>
						Save transcription settings
					</button>
					<ActionStatus state={state} />
				</form>
			)}
		</section>
	);
}
