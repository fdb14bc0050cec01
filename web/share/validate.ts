// Field-by-field shape check of the JSON part of a snapshot (capture report and
// connection summary). A snapshot arrives in a link anyone can edit, so every field
// the UI reads is checked for its type before the UI sees it; the error names the
// first bad field. Unknown extra fields are left alone (a newer writer may add some).

import type { ConnectionSummary, DirectionSummary, Handshake, Limit, ProcessInfo, Report, RtoChain, Stall, StallCause, SynOptions } from '../model/types';
import { SnapshotFormatError } from './bytes';

type Check = (value: unknown, path: string) => void;

function fail(path: string, expected: string): never {
  throw new SnapshotFormatError(`field ${path} should be ${expected}`);
}

const num: Check = (v, p) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(p, 'a number');
};
const count: Check = (v, p) => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(p, 'a whole number ≥ 0');
};
const str: Check = (v, p) => {
  if (typeof v !== 'string') fail(p, 'a string');
};
const bool: Check = (v, p) => {
  if (typeof v !== 'boolean') fail(p, 'true or false');
};
const nullable = (check: Check): Check => (v, p) => {
  if (v !== null) check(v, p);
};
const optional = (check: Check): Check => (v, p) => {
  if (v !== undefined) check(v, p);
};
const oneOf = (values: readonly unknown[]): Check => (v, p) => {
  if (!values.includes(v)) fail(p, `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`);
};
const array = (item: Check, max = 1_000_000): Check => (v, p) => {
  if (!Array.isArray(v) || v.length > max) fail(p, 'a list');
  v.forEach((x, i) => item(x, `${p}[${i}]`));
};
const tuple = (...items: Check[]): Check => (v, p) => {
  if (!Array.isArray(v) || v.length !== items.length) fail(p, `a list of ${items.length}`);
  items.forEach((check, i) => check(v[i], `${p}[${i}]`));
};
function object<T>(fields: { [K in keyof T]-?: Check }): Check {
  return (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(p, 'an object');
    for (const key of Object.keys(fields) as (keyof T & string)[]) {
      fields[key]((v as Record<string, unknown>)[key], `${p}.${key}`);
    }
  };
}

const STALL_CAUSES: StallCause[] = ['zero-window', 'window-limited', 'retransmission-timeout', 'application-idle', 'ack-wait', 'delayed-ack', 'unknown'];
const LIMITS: Limit[] = ['receive-window', 'zero-window', 'loss', 'application', 'stalls', 'path', 'too-short'];

const stall = object<Stall>({
  start: num, duration: num, cause: oneOf(STALL_CAUSES), frameBefore: count, frameAfter: count, endedBy: str,
});

const synOptions = object<SynOptions>({
  from: str, mss: nullable(count), windowScale: nullable(count), sackPermitted: bool, timestamps: bool, ecn: bool, tfo: bool,
});

const direction = object<DirectionSummary>({
  from: str, to: str, packets: count, payloadBytes: count, bytes: count,
  windowScale: nullable(count), windowScaleUnknown: bool, windowScaleLowerBound: nullable(count),
  receiveWindow: nullable(object<{ min: number; max: number }>({ min: num, max: num })),
  maxBytesInFlight: nullable(num),
  retransmissions: count, fastRetransmissions: count, spuriousRetransmissions: count,
  rtoEvents: optional(count), tailLossProbes: optional(count), slowStartRetransmissions: optional(count),
  rtoChains: optional(array(object<RtoChain>({ start: num, timeouts: count, intervalsMs: array(num) }))),
  duplicateAcks: count, zeroWindows: count, zeroWindowProbes: count, windowFull: count,
  keepAlives: count, lostSegments: count, outOfOrder: count,
  throughput: object<DirectionSummary['throughput']>({ meanBps: num, peakBps: num, binSeconds: num }),
  rtt: object<DirectionSummary['rtt']>({ minMs: nullable(num), medianMs: nullable(num) }),
  stalls: array(stall),
});

const summary = object<ConnectionSummary>({
  id: count,
  endpoints: tuple(str, str),
  handshakeSeen: bool,
  handshake: optional(object<Handshake>({ syn: nullable(synOptions), synAck: nullable(synOptions), windowScaling: oneOf(['negotiated', 'absent', 'not-captured']) })),
  captureLoss: optional(object<NonNullable<ConnectionSummary['captureLoss']>>({ unseenSegments: count, unseenBytes: count })),
  packets: count,
  start: num, end: num,
  dataDirection: oneOf([0, 1]),
  stallThresholdMs: optional(num),
  process: optional(nullable(object<ProcessInfo>({ name: str, pid: count }))),
  directions: tuple(direction, direction),
  diagnosis: object<ConnectionSummary['diagnosis']>({
    limit: oneOf(LIMITS),
    text: str,
    shares: object<ConnectionSummary['diagnosis']['shares']>({ receiveWindow: num, loss: num, application: num, stalled: num, other: num }),
  }),
});

/** The report without its connection list (the snapshot stores the one summary separately). */
export type ReportHead = Omit<Report, 'connections'>;

const reportHead = object<ReportHead>({
  schemaVersion: count,
  capture: object<Report['capture']>({
    format: oneOf(['pcap', 'pcapng', null]), linkTypes: array(str, 1000), packets: count, bytes: count, duration: num,
  }),
  error: nullable(object<NonNullable<Report['error']>>({
    message: str, packetIndex: nullable(count), byteOffset: nullable(count), layer: optional(str), kind: optional(str),
  })),
  warnings: array(object<Report['warnings'][number]>({ kind: str, count: count, message: str }), 10_000),
});

export interface SnapshotMeta {
  name: string;
  /** serializeView() of the view when the snapshot was made; parsed with parseView. */
  view: string;
  report: ReportHead;
  summary: ConnectionSummary;
}

/** Throws SnapshotFormatError naming the first field of the wrong type. */
export function validateMeta(value: unknown): SnapshotMeta {
  object<SnapshotMeta>({ name: str, view: str, report: reportHead, summary })(value, 'snapshot');
  return value as SnapshotMeta;
}
