// The person's side of mcpmux's release form (a held server, src/trust/approval-form.ts), for
// tests whose client answers other forms (secrets) and releases what it adds from strangers.

/** Whether an elicitation/create's params are the form that releases a held server. */
export function isReleaseForm(params: unknown): boolean {
  const properties = (params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties;
  return properties !== undefined && 'release' in properties;
}

/** The person's accept, box ticked: the server is released. */
export const RELEASED = { action: 'accept', content: { release: true } } as const;
