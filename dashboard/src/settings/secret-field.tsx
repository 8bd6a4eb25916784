import { type SecretInput, storedSecretText } from "./forms";

/**
 * A write-only secret: the input starts empty (empty keeps the stored one) and the stored
 * secret is described only as the API masked it.
 */
export function SecretField(props: {
	id: string;
	label: string;
	/** How the removal box names the secret, when the label's lower case reads wrong. */
	noun?: string;
	isSet: boolean;
	masked: string | null;
	input: SecretInput;
	onChange: (input: SecretInput) => void;
}) {
	const { id, label, isSet, masked, input, onChange } = props;
	return (
		<div class="field">
			<label for={id}>{label}</label>
			<input
				id={id}
				type="password"
				autocomplete="new-password"
				value={input.value}
				disabled={input.remove}
				aria-describedby={`${id}-stored`}
				onInput={(e) => onChange({ ...input, value: e.currentTarget.value })}
			/>
			<small id={`${id}-stored`}>{storedSecretText(isSet, masked)}</small>
			{isSet && (
				<label class="check">
					<input type="checkbox" checked={input.remove} onChange={(e) => onChange({ value: "", remove: e.currentTarget.checked })} />
					Remove the stored {props.noun ?? label.toLowerCase()}
				</label>
			)}
		</div>
	);
}
