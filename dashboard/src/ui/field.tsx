import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

interface FieldBase {
	label: string;
	/** A line under the control, tied to it with aria-describedby. */
	hint?: string;
	name?: string;
	required?: boolean;
	disabled?: boolean;
}

/** A labelled text input (`type` text, password, url, number, datetime-local...). */
export function TextField(
	props: FieldBase & {
		value: string;
		onValue: (value: string) => void;
		type?: string;
		placeholder?: string;
		autoComplete?: string;
		maxLength?: number;
		multiline?: boolean;
		readOnly?: boolean;
	},
) {
	const id = useId();
	const hintId = props.hint ? `${id}-hint` : undefined;
	const common = {
		id,
		name: props.name,
		value: props.value,
		required: props.required,
		disabled: props.disabled,
		placeholder: props.placeholder,
		maxLength: props.maxLength,
		readOnly: props.readOnly,
		"aria-describedby": hintId,
		onInput: (e: Event) => props.onValue((e.currentTarget as HTMLInputElement | HTMLTextAreaElement).value),
	};
	return (
		<div class="field">
			<label for={id}>{props.label}</label>
			{props.multiline ? (
				<textarea rows={3} {...common} />
			) : (
				<input type={props.type ?? "text"} autoComplete={props.autoComplete} {...common} />
			)}
			{props.hint ? (
				<small id={hintId} class="hint">
					{props.hint}
				</small>
			) : null}
		</div>
	);
}

/** A labelled select; `options` are `[value, label]` pairs. */
export function SelectField(props: FieldBase & { value: string; onValue: (value: string) => void; options: [string, string][] }) {
	const id = useId();
	return (
		<div class="field">
			<label for={id}>{props.label}</label>
			<select
				id={id}
				name={props.name}
				value={props.value}
				disabled={props.disabled}
				required={props.required}
				onChange={(e) => props.onValue((e.currentTarget as HTMLSelectElement).value)}
			>
				{props.options.map(([value, label]) => (
					<option key={value} value={value}>
						{label}
					</option>
				))}
			</select>
		</div>
	);
}

/** A checkbox with its label beside it. */
export function CheckboxField(props: FieldBase & { checked: boolean; onChecked: (checked: boolean) => void }) {
	const id = useId();
	return (
		<div class="field field-check">
			<input
				id={id}
				type="checkbox"
				name={props.name}
				checked={props.checked}
				disabled={props.disabled}
				onChange={(e) => props.onChecked((e.currentTarget as HTMLInputElement).checked)}
			/>
			<label for={id}>{props.label}</label>
		</div>
	);
}

/** A group of fields under a visible legend (a form section). */
export function FieldGroup(props: { legend: string; children: ComponentChildren }) {
	return (
		<fieldset class="field-group">
			<legend>{props.legend}</legend>
			{props.children}
		</fieldset>
	);
}
