// Writing to stdout the way pipelines need it (issue 16): wait for 'drain' when the
// pipe is full, exit through process.exitCode (never process.exit with output still
// queued), and stop quietly when the reader has gone (EPIPE: `… | head -c 100`).
import { once } from 'node:events';

/** Writes `text`, waiting for 'drain' when the pipe is full. */
export async function write(out, text) {
  if (text && !out.write(text)) await once(out, 'drain');
}

/** Collects small pieces into writes of about 1 MiB (one syscall each, not one per row). */
export class BatchedWriter {
  constructor(out) {
    this.out = out;
    this.pending = '';
  }

  async add(text) {
    this.pending += text;
    if (this.pending.length >= 1 << 20) await this.flush();
  }

  async flush() {
    const text = this.pending;
    this.pending = '';
    await write(this.out, text);
  }
}

/** When the reader of stdout closes early, end the process silently with status 0, as
 * `yes | head` does (the shell's SIGPIPE, without its 141 failing `set -o pipefail`):
 * nothing more can be delivered, so nothing is lost by exiting now. */
export function exitQuietlyOnBrokenPipe(out = process.stdout) {
  out.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
