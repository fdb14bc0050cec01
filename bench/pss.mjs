// Memory of a process tree as the kernel accounts it: PSS (proportional set size:
// pages shared between processes split between them) summed over a process and all
// its descendants, from /proc/PID/smaps_rollup (Linux ≥ 4.14). Used by the browser
// benchmark (bench/browser.mjs) and the memory-bound e2e tests (Chromium's renderer,
// GPU and utility processes all count; a Web Worker lives in the renderer).
import { readFileSync, readdirSync } from 'node:fs';

/** The pid of the first process whose command line contains `text`, or null. */
export function findProcess(text) {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)) return pid;
    } catch { /* gone */ }
  }
  return null;
}

/** PSS in bytes summed over the descendants of `root` (and `root` itself unless
 * `includeRoot` is false); null when /proc cannot tell (not Linux, root gone).
 * `byProcess`, when given, gets one entry per process: its Chromium `--type=` (or
 * "browser") and its PSS. */
export function treePss(root, { includeRoot = true, byProcess = null } = {}) {
  if (root == null) return null;
  let total = 0;
  let seen = false;
  for (const pid of processTree(root, includeRoot).keys()) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (m) {
        total += Number(m[1]) * 1024;
        seen = true;
        if (byProcess) {
          const type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'browser';
          byProcess.push({ pid: Number(pid), type, pss: Number(m[1]) * 1024 });
        }
      }
    } catch { /* gone */ }
  }
  return seen ? total : null;
}

/** The processes of the tree under `root` (itself too when `includeRoot`): pid → the
 * fields of /proc/PID/stat after the command (state is [0], ppid [1], utime [11],
 * stime [12]). */
function processTree(root, includeRoot = true) {
  const stats = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      stats.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' '));
    } catch { /* gone */ }
  }
  const inTree = (pid) => {
    for (let p = includeRoot ? pid : stats.get(pid)?.[1], n = 0; p && n < 50; p = stats.get(p)?.[1], n++) if (p === String(root)) return true;
    return false;
  };
  return new Map([...stats].filter(([pid]) => inTree(pid)));
}

/** CPU time (user + system, ms) used so far by `root` and its descendants, from
 * /proc/PID/stat (utime, stime at the kernel's USER_HZ of 100 on Linux); null when
 * /proc cannot tell. Two readings bracket a phase: the difference is the work the
 * whole browser did in it (renderer, its workers, the browser process's file reads). */
export function treeCpuMs(root) {
  if (root == null) return null;
  const tree = processTree(root);
  let ticks = 0;
  for (const f of tree.values()) ticks += Number(f[11]) + Number(f[12]);
  return tree.size ? ticks * 10 : null;
}
