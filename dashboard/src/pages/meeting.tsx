/** `#/meetings/<id>`: one meeting. */
export function MeetingPage(props: { id: string }) {
	return <h1>Meeting {props.id}</h1>;
}
