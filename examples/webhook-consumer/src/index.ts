/** The example webhook consumer (docs/client.md#the-example-webhook-consumer). */
export default {} satisfies ExportedHandler;
