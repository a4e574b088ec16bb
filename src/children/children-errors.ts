// What the children's lock answers when it refuses a change, or a server went away under one.
import { MuxError } from '../common/errors.js';

export const nameTaken = (name: string): MuxError =>
  new MuxError(
    'NAME_TAKEN',
    `a server named '${name}' already exists; remove it first or pick another name (reload_server restarts it)`,
  );

export const notFound = (name: string, known: readonly string[]): MuxError =>
  new MuxError(
    'SERVER_NOT_FOUND',
    `no server named '${name}'; ${known.length > 0 ? `known servers: ${known.join(', ')}` : 'no server is registered; add one with add_server'}`,
  );

/** A start or reload whose server remove_server (or shutdown) took away meanwhile. */
export const removedWhile = (doing: 'starting' | 'reloading', name: string): MuxError =>
  new MuxError('SERVER_STOPPED', `server '${name}' was removed while it was ${doing}`);

export const shuttingDown = (): MuxError =>
  new MuxError('SERVER_STOPPED', 'mcpmux is shutting down; no server can be added');
