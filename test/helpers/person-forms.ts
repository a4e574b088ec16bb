// The person's side of mcpmux's release form (a held server, src/trust/approval-form.ts), for
// tests whose client answers other forms (secrets) and releases what it adds from strangers.
import type { Client } from '@modelcontextprotocol/client';

/** Whether an elicitation/create's params are the form that releases a held server. */
export function isReleaseForm(params: unknown): boolean {
  const properties = (params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties;
  return properties !== undefined && 'release' in properties;
}

/** The person's accept, box ticked: the server is released. */
export const RELEASED = { action: 'accept', content: { release: true } } as const;

/**
 * A client that answers each form mcpmux shows the person with `answer`, keeping the forms it
 * was shown (their elicitation/create params), in the order asked.
 */
export function answeringPerson(answer: (form: Record<string, any>) => Record<string, unknown>) {
  const forms: Record<string, any>[] = [];
  return {
    forms,
    clientSide: {
      capabilities: { elicitation: { form: {} } },
      setup: (client: Client) =>
        client.setRequestHandler('elicitation/create', (request) => {
          forms.push(request.params);
          return answer(request.params) as never;
        }),
    },
  };
}
