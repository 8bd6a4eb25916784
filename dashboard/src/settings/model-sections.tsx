import type { Schemas } from "@meetbot/client";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { Button, ErrorBanner, SelectField, TextField } from "../ui";
import { type ModelForm, modelBody, modelForm, type TranscriptionForm, transcriptionBody, transcriptionForm } from "./forms";
import { SecretField } from "./secret-field";
import { ActionStatus, useAction } from "./status";

const DEFAULT_HINT = "Empty uses the deployment's default.";

/** The agent's model (docs/agent.md#the-model-and-its-tools): an OpenAI-compatible endpoint. */
export function ModelSection() {
	const [stored, setStored] = useState<Schemas["ModelSettings"] | null>(null);
	const [form, setForm] = useState<ModelForm | null>(null);
	const [loadError, setLoadError] = useState<unknown>(null);
	const [state, act] = useAction();

	const show = (settings: Schemas["ModelSettings"]) => {
		setStored(settings);
		setForm(modelForm(settings));
	};
	useEffect(() => {
		api.user.models.get().then(show).catch(setLoadError);
	}, []);

	const save = (e: Event) => {
		e.preventDefault();
		if (!form) return;
		void act(async () => {
			show(await api.user.models.put(modelBody(form)));
			return "Model settings saved.";
		});
	};

	return (
		<section aria-labelledby="models-heading" class="panel settings-card">
			<h2 id="models-heading">Model</h2>
			<ErrorBanner error={loadError} />
			{stored && form && (
				<form onSubmit={save} noValidate>
					<SelectField
						label="Mode"
						value={form.mode}
						options={[
							["", "Default"],
							["subscription", "subscription"],
							["custom", "custom"],
						]}
						onValue={(mode) => setForm({ ...form, mode })}
					/>
					<TextField
						label="Base URL"
						type="url"
						value={form.baseUrl}
						hint={`An OpenAI-compatible endpoint, e.g. https://api.openai.com/v1. ${DEFAULT_HINT}`}
						onValue={(baseUrl) => setForm({ ...form, baseUrl })}
					/>
					<TextField label="Model" value={form.model} hint={DEFAULT_HINT} onValue={(model) => setForm({ ...form, model })} />
					<TextField
						label="Meeting model"
						value={form.meetingModel}
						hint="The copilot's model; empty uses the model above."
						onValue={(meetingModel) => setForm({ ...form, meetingModel })}
					/>
					<SecretField
						label="API key"
						noun="API key"
						isSet={stored.api_key_set}
						masked={stored.api_key}
						input={form.apiKey}
						onChange={(apiKey) => setForm({ ...form, apiKey })}
					/>
					<Button type="submit" variant="primary" busy={state.kind === "busy"}>
						Save model settings
					</Button>
					<ActionStatus state={state} />
				</form>
			)}
		</section>
	);
}

/** What transcribes the account's bots (docs/api.md#transcription-engines), the endpoint for `openai`, and the engine's key. */
export function TranscriptionSection() {
	const [stored, setStored] = useState<Schemas["TranscriptionSettings"] | null>(null);
	const [form, setForm] = useState<TranscriptionForm | null>(null);
	const [loadError, setLoadError] = useState<unknown>(null);
	const [state, act] = useAction();

	const show = (settings: Schemas["TranscriptionSettings"]) => {
		setStored(settings);
		setForm(transcriptionForm(settings));
	};
	useEffect(() => {
		api.user.transcription.get().then(show).catch(setLoadError);
	}, []);

	const save = (e: Event) => {
		e.preventDefault();
		if (!form) return;
		void act(async () => {
			show(await api.user.transcription.put(transcriptionBody(form)));
			return "Transcription settings saved.";
		});
	};

	return (
		<section aria-labelledby="transcription-heading" class="panel settings-card">
			<h2 id="transcription-heading">Transcription</h2>
			<ErrorBanner error={loadError} />
			{stored && form && (
				<form onSubmit={save} noValidate>
					<SelectField
						label="Engine"
						value={form.engine}
						options={[
							["", "Default"],
							["captions", "captions"],
							["builtin", "builtin"],
							["openai", "openai"],
							["deepgram", "deepgram"],
							["assemblyai", "assemblyai"],
						]}
						onValue={(engine) => setForm({ ...form, engine })}
					/>
					<TextField
						label="Transcription URL"
						type="url"
						value={form.url}
						hint={`The openai engine's endpoint. ${DEFAULT_HINT}`}
						onValue={(url) => setForm({ ...form, url })}
					/>
					<SecretField
						label="Token"
						noun="token"
						isSet={stored.token_set}
						masked={stored.token}
						input={form.token}
						onChange={(token) => setForm({ ...form, token })}
					/>
					<Button type="submit" variant="primary" busy={state.kind === "busy"}>
						Save transcription settings
					</Button>
					<ActionStatus state={state} />
				</form>
			)}
		</section>
	);
}
