// What mcpmux passes between a child and its client without checking it: the receiving
// SDK (the client's, or the child's) validates a result against its method's schema, so a
// second check here would only double the cost.
import { z } from 'zod';

export const UncheckedResult = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null);
