// What mcpmux tells a client in its initialize result's instructions, which clients put
// before the model: how to use mcpmux, then the instructions of each server already running
// when the session began (under --http, the configured servers, as a direct connection to
// them would have given). A client reads instructions there only, once; a server that starts
// later gives its own in add_server's answer and in list_servers.
import { runningServers, type ChildrenSnapshot } from '../children/children-snapshot.js';

const ABOUT_MCPMUX =
  'mcpmux runs MCP servers behind this one connection. add_server starts a server and returns its tools, named ' +
  '<server>__<tool>; reload_server restarts one (after a rebuild, or when list_servers shows it crashed); ' +
  'remove_server stops one. search_tools finds tools by describing the task. If your tool list has not refreshed ' +
  "after add_server, call the new tools through call_tool. A server's own instructions, when it gives any, are in " +
  "add_server's answer and in list_servers.";

export function sessionInstructions(snapshot: ChildrenSnapshot): string {
  const servers = runningServers(snapshot).flatMap((view) => {
    const own = view.connection.about?.instructions?.trim();
    const prefix = view.prefix ?? `${view.name}__`;
    return own ? [`Instructions of server '${view.name}' (its tools are named ${prefix}…):\n${own}`] : [];
  });
  return [ABOUT_MCPMUX, ...servers].join('\n\n');
}
