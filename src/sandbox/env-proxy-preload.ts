// Loaded (NODE_OPTIONS --import) into every Node program of a sandboxed server that may reach a
// host: the sandbox offers the network only through its proxy, named in HTTPS_PROXY and
// HTTP_PROXY, and Node's fetch ignores those unless told. Node 22.21 and 24 read
// NODE_USE_ENV_PROXY=1 (set beside this); on older lines undici's EnvHttpProxyAgent, made
// for this, becomes fetch's dispatcher. http.request and https.request are not covered on
// those lines (docs/security.md says so).
import { createRequire } from 'node:module';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const nativeEnvProxy = major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
if (!nativeEnvProxy && (process.env['HTTPS_PROXY'] || process.env['HTTP_PROXY'])) {
  try {
    const undici = createRequire(import.meta.url)('undici') as typeof import('undici');
    undici.setGlobalDispatcher(new undici.EnvHttpProxyAgent());
  } catch (error) {
    process.stderr.write(`mcpmux: fetch will not use the sandbox's proxy: ${String(error)}\n`);
  }
}
