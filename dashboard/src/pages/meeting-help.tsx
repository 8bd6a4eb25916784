import { useState } from "preact/hooks";
import { screenshotSrc } from "../screenshot-src";
import type { Meeting } from "../types";
import { when } from "../ui";
import { helpKindWords, pageStateWords } from "../words";

type Help = NonNullable<Meeting["data"]["help"]>;
type Diagnostics = NonNullable<Meeting["data"]["diagnostics"]>;

/**
 * What a stuck bot sees (`needs_help`) and what a failed bot saw last (docs/api.md#help-and-diagnostics).
 * The page text, reasons and steps come from the meeting page: JSX text only. The screenshot is
 * shown only from the gateway's own signed route (screenshot-src.ts).
 */
export function HelpPanel(props: { meeting: Meeting; onLinkExpired: () => void }) {
	const { meeting } = props;
	const help = meeting.status === "needs_help" ? meeting.data.help : undefined;
	const diagnostics = meeting.status === "failed" ? meeting.data.diagnostics : undefined;
	if (help) return <StuckBot help={help} onLinkExpired={props.onLinkExpired} />;
	if (diagnostics) return <FailedBot diagnostics={diagnostics} onLinkExpired={props.onLinkExpired} />;
	return null;
}

function StuckBot(props: { help: Help; onLinkExpired: () => void }) {
	const { help } = props;
	return (
		<section aria-labelledby="help-heading" class="panel help-panel" data-testid="help">
			<h2 id="help-heading">The bot needs help</h2>
			{help.kind === "captions_unreadable" ? (
				<p class="notice-box" role="status">
					Since {when(help.since)}: {helpKindWords(help.kind)}. The bot stays in the call and keeps recording. Open the meeting and check
					that captions are on and shown; it carries on by itself once it reads a caption.
				</p>
			) : (
				<p class="notice-box" role="status">
					Stuck on {helpKindWords(help.kind)} since {when(help.since)}. Open the meeting and get the bot past this screen; it carries on by
					itself once it recognises the page again.
				</p>
			)}
			<p data-testid="help-reason">{help.reason}</p>
			<Screenshot url={help.screenshot_url} alt="What the bot sees" onLinkExpired={props.onLinkExpired} />
			<PageText text={help.page_text} />
		</section>
	);
}

function FailedBot(props: { diagnostics: Diagnostics; onLinkExpired: () => void }) {
	const { diagnostics } = props;
	return (
		<section aria-labelledby="diagnostics-heading" class="panel help-panel" data-testid="diagnostics">
			<h2 id="diagnostics-heading">What the bot saw last</h2>
			{diagnostics.page_state ? <p class="muted">The page looked like: {pageStateWords(diagnostics.page_state)}</p> : null}
			<Screenshot url={diagnostics.screenshot_url} alt="The bot's last screen" onLinkExpired={props.onLinkExpired} />
			{diagnostics.steps.length > 0 ? (
				<>
					<h3>The bot's last steps</h3>
					<ol class="driver-steps" data-testid="diagnostics-steps">
						{diagnostics.steps.map((step, i) => (
							<li key={`${step.at}-${i}`}>
								<span class="muted">{when(step.at)}</span> {step.step}
							</li>
						))}
					</ol>
				</>
			) : null}
			<PageText text={diagnostics.page_text} />
		</section>
	);
}

function PageText(props: { text: string }) {
	if (!props.text) return null;
	return (
		<>
			<h3>Text on the page</h3>
			<pre class="page-text" data-testid="page-text">
				{props.text}
			</pre>
		</>
	);
}

/** The screenshot, from a link that lasts minutes: when it fails to load, the record is read again once for a fresh one. */
function Screenshot(props: { url: string | null; alt: string; onLinkExpired: () => void }) {
	const src = screenshotSrc(props.url);
	const [retried, setRetried] = useState(false);
	if (!src) return <p class="muted">No screenshot.</p>;
	return (
		<img
			class="bot-screenshot"
			src={src}
			alt={props.alt}
			data-testid="screenshot"
			onError={() => {
				if (retried) return;
				setRetried(true);
				props.onLinkExpired();
			}}
		/>
	);
}
