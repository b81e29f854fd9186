/**
 * The lock on a PGlite data folder (`DATA_DIR/ess-console.lock`): one ESS Console process at a
 * time may open the folder, because PGlite is single-connection and two writers corrupt it.
 *
 * The lock file records who holds it: process id, host name, the machine's boot id and the
 * process's start time (Linux: `/proc/sys/kernel/random/boot_id`, field 22 of
 * `/proc/<pid>/stat`), and a random token. A process that finds the file judges the holder at
 * once instead of waiting for the lock to age (issue 13 item 10: a supervisor's quick restart
 * after a crash was refused for 15 s):
 *
 * - same host, and the machine has not restarted since: the holder is alive when a process with
 *   its id runs and, where start times can be read (Linux), started at the recorded time — else
 *   the id was reused (a container restarted as pid 1 again, say) and the lock is stale;
 * - a lock recorded before the machine last started is stale;
 * - no start times (macOS, Windows), another host (a folder shared over the network, a
 *   re-created container), an unreadable file, or a lock directory of an earlier version
 *   (proper-lockfile): the holder refreshes the file's modification time every
 *   {@link REFRESH_MS}; it is alive while that is younger than {@link STALE_MS}.
 *
 * A stale lock is taken over (under a short-lived `ess-console.lock.takeover` directory, so two
 * starting processes cannot both take it) and a warning says whose it was. A live holder makes
 * {@link lockDataDir} throw {@link DataDirInUseError}, whose message says what was found.
 *
 * Assumption: the host name identifies the machine (or container) — two containers sharing one
 * data folder must have different host names, as Docker gives them by default.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { readFile, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Name of the lock file inside the data folder. */
export const LOCK_FILE = 'ess-console.lock';
/** How often the holder refreshes the lock file's modification time (ms). */
export const REFRESH_MS = 5_000;
/** A lock not refreshed for this long is stale where the holder cannot be checked directly (ms). */
export const STALE_MS = 15_000;
/** A takeover directory older than this was left by a process that died taking over (ms). */
const TAKEOVER_STALE_MS = 5_000;

export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    /** What was found: whose lock, and why its holder counts as alive. */
    readonly found: string,
  ) {
    super(
      `The data folder ${dir} is in use by another ESS Console process: ${found}. ` +
        'Stop that process, or start this one with another DATA_DIR (or a DATABASE_URL).',
    );
  }
}

/** What the lock file says. */
interface LockRecord {
  pid: number;
  host: string;
  /** The machine's boot id when the lock was taken (Linux); null elsewhere. */
  bootId: string | null;
  /** The holder's start time in clock ticks since boot (Linux); null elsewhere. */
  startTime: string | null;
  token: string;
  /** When the lock was taken (ISO time). */
  since: string;
}

type Found =
  | { kind: 'record'; record: LockRecord; raw: string; ageMs: number }
  | { kind: 'unreadable'; raw: string; ageMs: number }
  | { kind: 'legacy'; ageMs: number; mtimeMs: number };

/** Tokens of the locks this process holds. */
const held = new Set<string>();

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The machine's boot id (Linux), null elsewhere. */
function bootId(): string | null {
  return readText('/proc/sys/kernel/random/boot_id')?.trim() || null;
}

/** Start time of process `pid` in clock ticks since boot (Linux: `/proc/<pid>/stat` field 22). */
function startTimeOf(pid: number): string | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return null;
  // Field 2 (the command) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

/** True when a process with this id exists (on this host), whoever owns it. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock at `file` as found now; null when there is none. */
function inspect(file: string): Found | null {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(file);
  } catch {
    return null;
  }
  const ageMs = Math.max(0, Date.now() - stats.mtimeMs);
  if (stats.isDirectory()) return { kind: 'legacy', ageMs, mtimeMs: stats.mtimeMs };
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { kind: 'unreadable', raw: '', ageMs };
  }
  try {
    const record = JSON.parse(raw) as LockRecord;
    if (Number.isInteger(record.pid) && typeof record.host === 'string' && typeof record.token === 'string') {
      return { kind: 'record', record, raw, ageMs };
    }
  } catch {
    // below
  }
  return { kind: 'unreadable', raw, ageMs };
}

/** Whether the holder of `found` is alive, and a sentence saying what was found. */
function judge(found: Found): { alive: boolean; what: string } {
  const age = `${Math.round(found.ageMs / 1000)} s`;
  const fresh = found.ageMs < STALE_MS;
  if (found.kind === 'legacy') {
    return {
      alive: fresh,
      what: `the lock directory of an earlier ESS Console version, refreshed ${age} ago`,
    };
  }
  if (found.kind === 'unreadable') {
    return { alive: fresh, what: `a lock file that cannot be read, last written ${age} ago` };
  }
  const r = found.record;
  const who = `the lock of process ${r.pid} on host ${r.host} (taken ${r.since})`;
  if (r.host !== os.hostname()) {
    return {
      alive: fresh,
      what: `${who}; it cannot be checked from this host, and it was refreshed ${age} ago`,
    };
  }
  const boot = bootId();
  if (r.bootId && boot && r.bootId !== boot) {
    return { alive: false, what: `${who}, from before this machine last started` };
  }
  if (r.pid === process.pid) {
    return held.has(r.token)
      ? { alive: true, what: `${who}: this process itself holds it` }
      : { alive: false, what: `${who}: an earlier process that had this process's id` };
  }
  if (!processExists(r.pid)) return { alive: false, what: `${who}: no process ${r.pid} is running` };
  const startTime = r.startTime ? startTimeOf(r.pid) : null;
  if (startTime) {
    return startTime === r.startTime
      ? { alive: true, what: `${who}: process ${r.pid} is running, started when it took the lock` }
      : { alive: false, what: `${who}: process id ${r.pid} now belongs to another program` };
  }
  return {
    alive: fresh,
    what: `${who}: a process ${r.pid} is running, and the lock was refreshed ${age} ago`,
  };
}

/** Creates the lock file holding `text`, whole, unless one exists. */
function tryCreate(file: string, text: string, token: string): boolean {
  const temp = `${file}.${token}`;
  writeFileSync(temp, text);
  try {
    // A hard link appears with its content complete, and fails when the name exists.
    linkSync(temp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw err;
    // A file system without hard links: exclusive create, then write.
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
    writeSync(fd, text);
    closeSync(fd);
    return true;
  } finally {
    rmSync(temp, { force: true });
  }
}

function sameLock(a: Found | null, b: Found): boolean {
  if (!a || a.kind !== b.kind) return false;
  if (a.kind === 'legacy') return a.mtimeMs === (b as typeof a).mtimeMs;
  return a.raw === (b as typeof a).raw;
}

/**
 * Removes the stale lock `found`, unless it changed meanwhile or another process is taking it
 * over; answers whether it was removed.
 */
function takeOver(file: string, found: Found): boolean {
  const guard = `${file}.takeover`;
  try {
    mkdirSync(guard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - statSync(guard).mtimeMs > TAKEOVER_STALE_MS) rmdirSync(guard);
    } catch {
      // gone already
    }
    return false;
  }
  try {
    if (!sameLock(inspect(file), found)) return false;
    rmSync(file, { recursive: found.kind === 'legacy', force: true });
    return true;
  } finally {
    rmdirSync(guard);
  }
}

export interface DataDirLockOptions {
  /**
   * Called when the lock is found taken by another process or removed while held (the default
   * logs and ends the process with code 70: it must stop writing at once).
   */
  onCompromised?: (err: Error) => void;
  /** Told when a stale lock was taken over (default: console.warn). */
  onTakeover?: (what: string) => void;
}

/**
 * Takes the lock on data folder `dir` (created if missing); answers the release function.
 * Throws {@link DataDirInUseError} when a live process holds it.
 */
export async function lockDataDir(
  dir: string,
  options: DataDirLockOptions = {},
): Promise<() => Promise<void>> {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  const record: LockRecord = {
    pid: process.pid,
    host: os.hostname(),
    bootId: bootId(),
    startTime: startTimeOf(process.pid),
    token: randomUUID(),
    since: new Date().toISOString(),
  };
  const text = `${JSON.stringify(record, null, 2)}\n`;
  const onTakeover = options.onTakeover ?? ((what) => console.warn(`Took over the lock on ${dir}: ${what}.`));
  let busy = 0;
  for (;;) {
    if (tryCreate(file, text, record.token)) break;
    const found = inspect(file);
    if (found) {
      const verdict = judge(found);
      if (verdict.alive) throw new DataDirInUseError(dir, verdict.what);
      if (takeOver(file, found)) {
        onTakeover(verdict.what);
        continue;
      }
    }
    // Released just now, or another process is taking the same stale lock over: let it finish,
    // then look again (a name that neither opens nor can be created ends here too).
    if (++busy > 100) throw new DataDirInUseError(dir, `${file} keeps changing or cannot be read`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  held.add(record.token);
  const compromised =
    options.onCompromised ??
    ((err: Error) => {
      console.error(`Lost the lock on ${dir}: ${err.message}`);
      process.exit(70);
    });
  // The heartbeat: keeps the file young for those who cannot check this process directly, and
  // notices a lock taken away (removed by hand, or taken over by mistake).
  let stopped = false;
  const timer = setInterval(() => {
    void (async () => {
      const now = new Date();
      try {
        await utimes(file, now, now);
        const current = await readFile(file, 'utf8');
        if (!stopped && !current.includes(record.token)) {
          throw Object.assign(new Error('another process holds it now'), { code: 'ETAKEN' });
        }
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (stopped) return;
        if (code === 'ENOENT' || code === 'ETAKEN') {
          stopped = true;
          clearInterval(timer);
          compromised(code === 'ENOENT' ? new Error('the lock file was removed') : (err as Error));
        }
        // Other errors (a busy network share): try again at the next beat.
      }
    })();
  }, REFRESH_MS);
  timer.unref();
  return async () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    held.delete(record.token);
    if (readText(file)?.includes(record.token)) rmSync(file, { force: true });
  };
}
