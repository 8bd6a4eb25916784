import { useState } from "preact/hooks";
import type { Route } from "../route";
import { DeliveriesSection } from "../settings/deliveries-section";
import { KeysSection } from "../settings/keys-section";
import { ModelSection, TranscriptionSection } from "../settings/model-sections";
import { WebhookSection } from "../settings/webhook-section";
import "./settings.css";

/** `#/settings`: webhook, models, transcription, API keys, then the delivery history (docs/dashboard.md#settings). */
export function SettingsPage(_props: { route: Route }) {
	// A saved webhook may change which deliveries follow, and a test adds one: the history reloads after each.
	const [saves, setSaves] = useState(0);
	return (
		<div class="settings-page">
			<h1>Settings</h1>
			<div class="settings-grid">
				<WebhookSection onSaved={() => setSaves((n) => n + 1)} />
				<ModelSection />
				<TranscriptionSection />
				<KeysSection />
				<DeliveriesSection reload={saves} />
			</div>
		</div>
	);
}
