// CPU time of the processes that serve a benchmark window: the server nodes, redis-server and the
// PostgreSQL backends connected to the benchmark's own database (pg_stat_activity), read from
// /proc/<pid>/stat (utime + stime). The load generator is not counted. CPU time is the steady
// figure on a shared machine: another agent's load stretches latency, hardly the work done.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';

let tick = 100;
try {
  tick = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // Linux's usual USER_HZ.
}

/** CPU milliseconds a process has used so far (0 once it is gone). */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / tick;
  } catch {
    return 0;
  }
}

/**
 * A meter over groups of processes: `start()` then `stop()` gives CPU ms per group over the
 * window. `groups`: { name: () => Promise<number[]> } (pids looked up at both ends; a process
 * seen at only one end counts from 0 or up to its last reading).
 */
export function cpuMeter(groups) {
  return {
    async start() {
      const before = {};
      for (const [name, pidsOf] of Object.entries(groups)) {
        before[name] = new Map((await pidsOf()).map((pid) => [pid, cpuMs(pid)]));
      }
      return {
        async stop() {
          const out = {};
          for (const [name, pidsOf] of Object.entries(groups)) {
            const pids = new Set([...(await pidsOf()), ...before[name].keys()]);
            let sum = 0;
            for (const pid of pids) {
              const now = cpuMs(pid);
              const was = before[name].get(pid) ?? 0;
              if (now >= was) sum += now - was;
            }
            out[name] = sum;
          }
          return out;
        },
      };
    },
  };
}

/** The pids of the PostgreSQL backends connected to database `name` (ours only: not the machine's other users). */
export function postgresBackends(adminUrl, name) {
  return async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      const { rows } = await c.query('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      return rows.map((r) => r.pid);
    } finally {
      await c.end();
    }
  };
}
