import { useState } from "preact/hooks";
import type { Route } from "../route";
import { DeliveriesSection } from "../settings/deliveries-section";
import { KeysSection } from "../settings/keys-section";
import { ModelSection, TranscriptionSection } from "../settings/model-sections";
import { WebhookSection } from "../settings/webhook-section";
import "./settings.css";

/** `#/settings`: webhook, models, transcription, API keys (docs/dashboard.md#settings). */
export function SettingsPage(_props: { route: Route }) {
	// A saved webhook may change which deliveries follow: the history reloads after each save.
	const [saves, setSaves] = useState(0);
	return (
		<div class="settings-page">
			<h1>Settings</h1>
			<div class="settings-grid">
				<WebhookSection onSaved={() => setSaves((n) => n + 1)} />
				<ModelSection />
				<TranscriptionSection />
				<DeliveriesSection reload={saves} />
				<KeysSection />
			</div>
		</div>
	);
}
