/** Shared UI pieces for every page (the shell's and h-pages' settings/agent pages). */
export { Button } from "./button";
export { ErrorBanner, errorText, Notice } from "./error-banner";
export { CheckboxField, FieldGroup, SelectField, TextField } from "./field";
export { bytes, clock, when } from "./format";
export { StatusBadge, statusWords } from "./status-badge";
export { TranscriptView } from "./transcript-view";
export { type Resource, useResource } from "./use-resource";
