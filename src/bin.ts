#!/usr/bin/env node
// The executable. It turns on Node's compile cache (Node 22.1 and later; a no-op before)
// and only then loads the program: a module is compiled when it is loaded, so the cache must
// be on before main.ts and what it imports are. With it, V8 reuses the code it compiled at
// an earlier start instead of parsing ~1 MB of JavaScript again (measured on Node 22.23,
// spawn to first answered tools/list: empty mcpmux 163–165 → 156–158 ms, with a configured
// server-memory 281–293 → 266–271 ms). The cache lives where Node puts it
// (NODE_COMPILE_CACHE, else the system's temporary directory); NODE_DISABLE_COMPILE_CACHE=1
// turns it off, and a cache that cannot be written is skipped without a word.
//
// zod is told not to compile: by default it turns each object schema into a generated
// function (`new Function`) the first time it parses with it, which pays only for a schema
// parsed many times. mcpmux parses most of the SDK's schemas a few times, at start-up, and
// forwards calls without parsing them: without those compilations a configured start came
// 7–15 ms sooner and an empty one 9 ms (14 alternating rounds), with streamable HTTP's CPU per
// call unchanged; the cost is memory, 3–7 MB more with 50 servers of 100 tools each (129 → 136
// MB after 30 lists of the 5,000). It must be set before the SDK's schemas are made, that is
// before main.ts loads (and zod itself after the cache is on).
import module from 'node:module';

// Node 20's types do not know the function; at run time it is there from 22.1 on.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
(await import('zod')).config({ jitless: true });
await import('./main.js');
