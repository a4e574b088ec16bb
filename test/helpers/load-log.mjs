// `--import` this to have the built mcpmux name every dist/ file it loads (load-log-hooks.mjs).
import { register } from 'node:module';
register('./load-log-hooks.mjs', import.meta.url);
