import type { Schemas } from "@meetbot/client";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { Button, CheckboxField, ErrorBanner, FieldGroup, TextField } from "../ui";
import { webhookTestWords } from "../words";
import { WEBHOOK_EVENTS, type WebhookForm, webhookBody, webhookForm } from "./forms";
import { SecretField } from "./secret-field";
import { ActionStatus, useAction } from "./status";

/** Webhook address, signing secret and event filter (docs/webhooks.md). */
export function WebhookSection({ onSaved }: { onSaved: () => void }) {
	const [stored, setStored] = useState<Schemas["WebhookSettings"] | null>(null);
	const [form, setForm] = useState<WebhookForm | null>(null);
	const [loadError, setLoadError] = useState<unknown>(null);
	const [state, act] = useAction();
	const [testState, test] = useAction();
	const sendTest = () =>
		test(async () => {
			const result = await api.user.webhook.test();
			// The test is in the delivery history too.
			onSaved();
			return webhookTestWords(result);
		});

	const load = async () => {
		const settings = await api.user.webhook.get();
		setStored(settings);
		setForm(webhookForm(settings));
	};
	useEffect(() => {
		load().catch(setLoadError);
	}, []);

	const save = (e: Event) => {
		e.preventDefault();
		if (!form) return;
		void act(async () => {
			await api.user.webhook.put(webhookBody(form));
			// Read back what the API now holds, masked, rather than echoing what was typed.
			await load();
			onSaved();
			return "Webhook settings saved.";
		});
	};

	return (
		<section aria-labelledby="webhook-heading" class="panel settings-card">
			<h2 id="webhook-heading">Webhook</h2>
			<ErrorBanner error={loadError} />
			{stored && form && (
				<form onSubmit={save} noValidate>
					<TextField
						label="Webhook URL"
						type="url"
						placeholder="https://hooks.example.com/meetbot"
						value={form.url}
						hint="Empty removes the webhook."
						onValue={(url) => setForm({ ...form, url })}
					/>
					<SecretField
						label="Signing secret"
						noun="signing secret"
						isSet={stored.webhook_secret_set}
						masked={stored.webhook_secret}
						input={form.secret}
						onChange={(secret) => setForm({ ...form, secret })}
					/>
					<FieldGroup legend="Events to send">
						{WEBHOOK_EVENTS.map(({ type, label }) => (
							<CheckboxField
								key={type}
								name={type}
								label={`${label} (${type})`}
								checked={form.events[type]}
								onChecked={(checked) => setForm({ ...form, events: { ...form.events, [type]: checked } })}
							/>
						))}
					</FieldGroup>
					<Button type="submit" variant="primary" busy={state.kind === "busy"}>
						Save webhook
					</Button>
					<ActionStatus state={state} />
				</form>
			)}
			{stored?.webhook_url && (
				<div class="webhook-test">
					<Button onClick={() => void sendTest()} busy={testState.kind === "busy"}>
						Send a test webhook
					</Button>
					<ActionStatus state={testState} busy="Sending a test webhook…" />
				</div>
			)}
		</section>
	);
}
