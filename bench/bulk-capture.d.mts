/** Writes a bulk-transfer capture of about `packets` packets to `path` (bench/bulk-capture.mjs); returns its duration in s. */
export function writeBulkCapture(path: string, packets: number): number;
