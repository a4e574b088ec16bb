// Reads the kernel's process table to tell whether a process group still has living
// members. A zombie counts as dead: on hosts whose init does not reap orphans (some
// containers and micro-VMs), a killed grandchild stays a zombie forever, and
// `kill(-pgid, 0)` alone would report its group alive.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state from /proc/PID/stat: R, S, D, Z, T, … */
  state: string;
}

const hasProc = process.platform === 'linux';

/** Parses /proc/PID/stat; the command name may contain spaces and parentheses. */
function readStat(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return undefined; // gone between readdir and read
  }
}

/** Every process visible in /proc (Linux only; empty elsewhere). */
export function listProcesses(): ProcessInfo[] {
  if (!hasProc) return [];
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const info = readStat(pid);
    if (info) out.push(info);
  }
  return out;
}

/** True while the group has a member that is not a zombie. */
export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    // EPERM means it exists but is not ours; treat as alive so we never report false death.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!hasProc) return true;
  return listProcesses().some((p) => p.pgid === pgid && p.state !== 'Z');
}

/** True while the process exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!hasProc) return true;
  const info = readStat(pid);
  return info !== undefined && info.state !== 'Z';
}
