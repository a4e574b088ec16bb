// `node --import ./test/loader/register.mjs`: the suites' TypeScript loader (hooks.mjs).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
