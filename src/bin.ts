#!/usr/bin/env node
// The executable. It turns on Node's compile cache (Node 22.1 and later; a no-op before)
// and only then loads the program: a module is compiled when it is loaded, so the cache must
// be on before main.ts and what it imports are. With it, V8 reuses the code it compiled at
// an earlier start instead of parsing ~1 MB of JavaScript again (measured on Node 22.23,
// spawn to first answered tools/list: empty mcpmux 163–165 → 156–158 ms, with a configured
// server-memory 281–293 → 266–271 ms). The cache lives where Node puts it
// (NODE_COMPILE_CACHE, else the system's temporary directory); NODE_DISABLE_COMPILE_CACHE=1
// turns it off, and a cache that cannot be written is skipped without a word.
import module from 'node:module';

// Node 20's types do not know the function; at run time it is there from 22.1 on.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./main.js');
