// The environment variables that decide what code a program runs rather than what it does:
// where the dynamic loader, an interpreter or a shell finds code to load, options that make
// a runtime load more, where programs and packages come from, and the trust that guards a
// download. Under a spawn policy a runtime add may set none of them unless the operator
// admits it by name (--allow-env), because any one of them turns an allowed program into
// any program. One table, so the list is read and extended in one place.
import { compileGlob } from '../common/glob-matcher.js';

interface LoaderFamily {
  /** What setting them does, for the refusal. */
  readonly why: string;
  /** Names and globs; matched without regard to case (Windows' names and npm's npm_config_* are so). */
  readonly names: readonly string[];
}

export const LOADER_FAMILIES: readonly LoaderFamily[] = [
  {
    why: 'the dynamic loader loads libraries from it',
    names: ['LD_*', 'DYLD_*', 'LIBPATH', 'SHLIB_PATH', 'GCONV_PATH', 'GLIBC_TUNABLES'],
  },
  {
    why: 'it changes where programs are found',
    names: ['PATH', 'PATHEXT', 'COMSPEC', 'SHELL', 'EDITOR', 'VISUAL', 'PAGER', 'BROWSER', '*_ASKPASS'],
  },
  {
    why: 'a shell runs code from it',
    names: [
      'BASH_ENV',
      'ENV',
      'BASH_FUNC_*',
      'SHELLOPTS',
      'BASHOPTS',
      'PS4',
      'PROMPT_COMMAND',
      'IFS',
      'CDPATH',
      'ZDOTDIR',
    ],
  },
  {
    why: 'Node.js loads code through it',
    names: ['NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE', 'NODE_ICU_DATA', 'NODE_COMPILE_CACHE'],
  },
  {
    why: 'it decides where packages come from or what a package manager runs',
    names: [
      'npm_config_*',
      'NPM_CONFIG_*',
      'COREPACK_*',
      'YARN_*',
      'BUN_CONFIG_*',
      'BUN_OPTIONS',
      'UV_*',
      'PIP_*',
      'PIPX_*',
      'VIRTUAL_ENV',
      'CONDA_PREFIX',
      'GEM_HOME',
      'GEM_PATH',
      'BUNDLE_*',
      'GOFLAGS',
      'GOPROXY',
      'GOSUMDB',
      'GONOSUMDB',
      'GONOSUMCHECK',
      'GOINSECURE',
      'GOPRIVATE',
      'GOTOOLCHAIN',
      'CARGO_*',
      'DOCKER_*',
      'GIT_*',
    ],
  },
  {
    why: 'it decides which servers a download trusts',
    names: [
      'NODE_EXTRA_CA_CERTS',
      'NODE_TLS_REJECT_UNAUTHORIZED',
      'SSL_CERT_FILE',
      'SSL_CERT_DIR',
      'REQUESTS_CA_BUNDLE',
      'CURL_CA_BUNDLE',
      'OPENSSL_CONF',
      'OPENSSL_ENGINES',
      'OPENSSL_MODULES',
    ],
  },
  {
    why: 'Python loads code through it',
    names: [
      'PYTHONPATH',
      'PYTHONHOME',
      'PYTHONSTARTUP',
      'PYTHONUSERBASE',
      'PYTHONPLATLIBDIR',
      'PYTHONBREAKPOINT',
      'PYTHONWARNINGS',
      'PYTHONEXECUTABLE',
      'PYTHONPYCACHEPREFIX',
    ],
  },
  {
    why: 'an interpreter loads code through it',
    names: [
      'PERL5OPT',
      'PERL5LIB',
      'PERLLIB',
      'PERL5DB',
      'RUBYOPT',
      'RUBYLIB',
      'JAVA_TOOL_OPTIONS',
      '_JAVA_OPTIONS',
      'JDK_JAVA_OPTIONS',
      'CLASSPATH',
      'JAVA_HOME',
      'LUA_PATH*',
      'LUA_CPATH*',
      'LUA_INIT*',
      'PHPRC',
      'PHP_INI_SCAN_DIR',
      'TCLLIBPATH',
    ],
  },
  {
    why: 'programs read their configuration (.npmrc, pip.conf, uv.toml, .bashrc…) from under it',
    names: ['HOME', 'USERPROFILE', 'APPDATA', 'XDG_CONFIG_HOME', 'XDG_CONFIG_DIRS', 'XDG_DATA_HOME'],
  },
];

// Compiled on first use: most runs set no policy, and picomatch loads with the first glob.
let families: { why: string; test: (name: string) => boolean }[] | undefined;

/** Why `name` is a loader variable, or undefined when it is not one. */
export function loaderVariable(name: string): string | undefined {
  families ??= LOADER_FAMILIES.map((family) => ({
    why: family.why,
    test: compileGlob(family.names, { nocase: true, dot: true }),
  }));
  return families.find((family) => family.test(name))?.why;
}
