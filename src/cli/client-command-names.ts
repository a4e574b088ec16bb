// The subcommands that read and write other clients' config files (client-commands.ts,
// loaded only when one is given).
export const CLIENT_COMMANDS: readonly string[] = ['import', 'install'];
