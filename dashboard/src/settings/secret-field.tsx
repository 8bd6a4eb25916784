import { useId } from "preact/hooks";
import { CheckboxField } from "../ui";
import { type SecretInput, storedSecretText } from "./forms";

/**
 * A write-only secret: the input starts empty (empty keeps the stored one) and the stored
 * secret is described only as the API masked it.
 */
export function SecretField(props: {
	label: string;
	/** How the removal box names the secret. */
	noun: string;
	isSet: boolean;
	masked: string | null;
	input: SecretInput;
	onChange: (input: SecretInput) => void;
}) {
	const { label, noun, isSet, masked, input, onChange } = props;
	const id = useId();
	return (
		<>
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
				<small id={`${id}-stored`} class="hint">
					{storedSecretText(isSet, masked)}
				</small>
			</div>
			{isSet && (
				<CheckboxField label={`Remove the stored ${noun}`} checked={input.remove} onChecked={(remove) => onChange({ value: "", remove })} />
			)}
		</>
	);
}
