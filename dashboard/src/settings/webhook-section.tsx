import { useEffect, useState } from "preact/hooks";
import { request } from "../api";
import { WEBHOOK_EVENTS, type WebhookForm, type WebhookSettings, webhookBody, webhookForm } from "./forms";
import { SecretField } from "./secret-field";
import { ActionStatus, errorText, useAction } from "./status";

/** Webhook address, signing secret and event filter (docs/webhooks.md). */
export function WebhookSection({ onSaved }: { onSaved: () => void }) {
	const [stored, setStored] = useState<WebhookSettings | null>(null);
	const [form, setForm] = useState<WebhookForm | null>(null);
	const [loadError, setLoadError] = useState("");
	const [state, act] = useAction();

	const load = async () => {
		const settings = await request<WebhookSettings>("GET", "/user/webhook");
		setStored(settings);
		setForm(webhookForm(settings));
	};
	useEffect(() => {
		load().catch((err) => setLoadError(errorText(err)));
	}, []);

	const save = (e: Event) => {
		e.preventDefault();
		if (!form) return;
		void act(async () => {
			await request("PUT", "/user/webhook", webhookBody(form));
			// Read back what the API now holds, masked, rather than echoing what was typed.
			await load();
			onSaved();
			return "Webhook settings saved.";
		});
	};

	return (
		<section aria-labelledby="webhook-heading" class="settings-card">
			<h2 id="webhook-heading">Webhook</h2>
			{loadError && (
				<p role="alert" class="form-error">
					{loadError}
				</p>
			)}
			{stored && form && (
				<form onSubmit={save} noValidate>
					<div class="field">
						<label for="webhook-url">Webhook URL</label>
						<input
							id="webhook-url"
							type="url"
							inputMode="url"
							placeholder="https://hooks.example.com/meetbot"
							value={form.url}
							aria-describedby="webhook-url-hint"
							onInput={(e) => setForm({ ...form, url: e.currentTarget.value })}
						/>
						<small id="webhook-url-hint">Empty removes the webhook.</small>
					</div>
					<SecretField
						id="webhook-secret"
						label="Signing secret"
						isSet={stored.webhook_secret_set}
						masked={stored.webhook_secret}
						input={form.secret}
						onChange={(secret) => setForm({ ...form, secret })}
					/>
					<fieldset>
						<legend>Events to send</legend>
						{WEBHOOK_EVENTS.map(({ type, label }) => (
							<label class="check" key={type}>
								<input
									type="checkbox"
									name={type}
									checked={form.events[type]}
									onChange={(e) => setForm({ ...form, events: { ...form.events, [type]: e.currentTarget.checked } })}
								/>
								<span>
									{label} <code>{type}</code>
								</span>
							</label>
						))}
					</fieldset>
					<button type="submit" disabled={state.kind === "busy"}>
						Save webhook
					</button>
					<ActionStatus state={state} />
				</form>
			)}
		</section>
	);
}
