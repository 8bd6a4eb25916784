import type { Schemas } from "@meetbot/client";
import { useContext, useState } from "preact/hooks";
import { abortable, api } from "../api";
import { MeContext } from "../me";
import { Button, CheckboxField, ErrorBanner, FieldGroup, Notice, SelectField, TextField, useResource, when } from "../ui";
import { ActionStatus, useAction } from "./status";

type ApiKey = Schemas["ApiKey"];
type MintedKey = Schemas["MintedApiKey"];

/** What each scope lets a key do, in the words of docs/api.md#route-table. */
const SCOPE_WORDS: Record<string, string> = {
	bot: "bot: send and stop bots, and everything tx does",
	tx: "tx: read meetings, transcripts and recordings",
	browser: "browser: sign in only",
};

/** A new key's lifetime when none is chosen (DEFAULT_KEY_LIFETIME_DAYS, src/routes/api-keys.ts). */
const DEFAULT_DAYS = 90;

/** `expires_in_days` choices after the default one. */
const EXPIRIES: [string, string][] = [
	["7", "In 7 days"],
	["30", "In 30 days"],
	["365", "In a year"],
];

/** The choices, where the default says what it gives: 90 days, or less when the signed-in key ends sooner. */
function expiryChoices(keys: ApiKey[] | null): [string, string][] {
	const until = keys?.find((key) => key.current)?.expires_at;
	const sooner = until && Date.parse(until) < Date.now() + DEFAULT_DAYS * 86_400_000;
	return [["", sooner ? `When this key expires (${when(until)})` : `In ${DEFAULT_DAYS} days`], ...EXPIRIES];
}

/** How a key's maker is named in the list: the minting key's hint, while that key is listed. */
function mintedByLabel(key: ApiKey, keys: ApiKey[]): string {
	if (key.minted_by === null) return "operator";
	const parent = keys.find((k) => k.id === key.minted_by);
	return parent ? `key ${parent.key_hint ?? parent.id}` : `key ${key.minted_by}`;
}

/** The keys revoked with `key`: those it minted, and theirs. */
function mintedFrom(key: ApiKey, keys: ApiKey[]): number {
	const children = keys.filter((k) => k.minted_by === key.id);
	return children.reduce((n, child) => n + 1 + mintedFrom(child, keys), 0);
}

const expired = (key: ApiKey) => key.expires_at !== null && Date.parse(key.expires_at) <= Date.now();

/**
 * The signed-in user's own API keys (docs/api.md#your-own-api-keys): the list, masked; minting
 * one with some of this key's scopes, shown once; revoking one after a confirmation.
 */
export function KeysSection() {
	const held = useContext(MeContext)?.scopes ?? [];
	const [round, setRound] = useState(0);
	const list = useResource((signal) => abortable(signal).auth.keys.list(), String(round));
	const [name, setName] = useState("");
	const [scopes, setScopes] = useState<string[]>(held);
	const [expiry, setExpiry] = useState("");
	const [minted, setMinted] = useState<MintedKey | null>(null);
	const [copied, setCopied] = useState<string | null>(null);
	const [mintState, runMint] = useAction();
	const [confirming, setConfirming] = useState<ApiKey | null>(null);
	const [revokeState, runRevoke] = useAction();

	const mint = (e: Event) => {
		e.preventDefault();
		void runMint(async () => {
			const body = {
				scopes,
				...(name.trim() ? { name: name.trim() } : {}),
				...(expiry ? { expires_in_days: Number(expiry) } : {}),
			};
			setMinted(await api.auth.keys.mint(body));
			setCopied(null);
			setName("");
			setRound((n) => n + 1);
			return "Key created.";
		});
	};

	const copy = async (token: string) => {
		try {
			await navigator.clipboard.writeText(token);
			setCopied("Copied to the clipboard.");
		} catch {
			setCopied("Copying was not allowed here: select the key and copy it yourself.");
		}
	};

	const revoke = (key: ApiKey) =>
		runRevoke(async () => {
			await api.auth.keys.revoke(key.id);
			setConfirming(null);
			// Revoking the key this tab signed in with: the next call gets 401 and the shell signs out.
			setRound((n) => n + 1);
			return `Key ${key.name ?? key.key_hint ?? key.id} revoked.`;
		});

	const keys = list.data?.keys ?? null;
	return (
		<section aria-labelledby="keys-heading" class="panel settings-card settings-wide">
			<h2 id="keys-heading">API keys</h2>
			<p class="hint">
				Keys for your scripts and integrations. A new key can have only scopes this key has ({held.join(", ")}), and is revoked with this
				key. Its value is shown once.
			</p>
			<ErrorBanner error={list.error} />
			{keys && keys.length === 0 && <p>No keys.</p>}
			{keys && keys.length > 0 && (
				<div class="table-scroll">
					<table class="table api-keys">
						<caption class="visually-hidden">Your API keys, newest first</caption>
						<thead>
							<tr>
								<th scope="col">Name</th>
								<th scope="col">Key</th>
								<th scope="col">Scopes</th>
								<th scope="col">Created</th>
								<th scope="col">Expires</th>
								<th scope="col">Minted by</th>
								<th scope="col">
									<span class="visually-hidden">Actions</span>
								</th>
							</tr>
						</thead>
						<tbody>
							{keys.map((key) => (
								<tr key={key.id} data-key-id={key.id}>
									<td data-label="Name">
										{key.name ?? <span class="muted">unnamed</span>}
										{key.current && <strong class="key-current"> (this key)</strong>}
									</td>
									<td data-label="Key">
										<code>{key.key_hint ?? "(no hint)"}</code>
									</td>
									<td data-label="Scopes">{key.scopes.join(", ")}</td>
									<td data-label="Created">
										<time dateTime={key.created_at}>{when(key.created_at)}</time>
									</td>
									<td data-label="Expires">
										{key.expires_at ? <time dateTime={key.expires_at}>{when(key.expires_at)}</time> : "never"}
										{expired(key) && <strong> (expired)</strong>}
									</td>
									<td data-label="Minted by">{mintedByLabel(key, keys)}</td>
									<td data-label="Actions">
										<Button variant="danger" label={`Revoke key ${key.key_hint ?? key.id}`} onClick={() => setConfirming(key)}>
											Revoke
										</Button>
									</td>
								</tr>
							))}
						</tbody>
					</table>
				</div>
			)}
			{confirming && (
				<section class="confirm-revoke" aria-labelledby="revoke-question">
					<p id="revoke-question">
						Revoke key <code>{confirming.key_hint ?? confirming.id}</code>
						{confirming.name ? ` (${confirming.name})` : ""}? It stops working at once.
						{keys && mintedFrom(confirming, keys) > 0 ? ` So do the ${mintedFrom(confirming, keys)} key(s) minted from it.` : ""}
						{confirming.current ? " It is the key you are signed in with: you will be signed out." : ""}
					</p>
					<Button variant="danger" busy={revokeState.kind === "busy"} onClick={() => void revoke(confirming)}>
						Yes, revoke it
					</Button>
					<Button onClick={() => setConfirming(null)}>Cancel</Button>
				</section>
			)}
			<ActionStatus state={revokeState} />

			{minted && (
				<section class="minted-key" aria-labelledby="minted-heading">
					<h3 id="minted-heading">Your new key</h3>
					<p>Copy it now: it is not shown again.</p>
					<TextField label="New API key" value={minted.token} readOnly onValue={() => undefined} />
					<Button onClick={() => void copy(minted.token)}>Copy key</Button>
					<Button onClick={() => setMinted(null)}>Done</Button>
					<Notice text={copied} />
				</section>
			)}

			<form onSubmit={mint} noValidate class="mint-key">
				<h3>Create a key</h3>
				<TextField label="Key name" value={name} maxLength={100} hint="Optional, to tell your keys apart." onValue={setName} />
				<FieldGroup legend="Scopes">
					{held.map((scope) => (
						<CheckboxField
							key={scope}
							name={scope}
							label={SCOPE_WORDS[scope] ?? scope}
							checked={scopes.includes(scope)}
							onChecked={(on) =>
								setScopes(on ? [...held.filter((s) => s === scope || scopes.includes(s))] : scopes.filter((s) => s !== scope))
							}
						/>
					))}
				</FieldGroup>
				<SelectField label="Expires" value={expiry} options={expiryChoices(keys)} onValue={setExpiry} />
				<Button type="submit" variant="primary" busy={mintState.kind === "busy"} disabled={scopes.length === 0}>
					Create key
				</Button>
				<ActionStatus state={mintState} />
			</form>
		</section>
	);
}
