// Types of format.mjs (plain JavaScript so that the CLI runs it without a build).
export function countOf(n: number, noun: string): string;
export function num(v: number): string;
export function formatBitrate(bps: number): string;
export const formatRate: typeof formatBitrate;
export function formatBytes(bytes: number): string;
export function formatBytesSI(bytes: number): string;
export function formatDuration(seconds: number): string;
export function formatTimestamp(seconds: number): string;
export function formatTime(seconds: number): string;
export function formatPercent(share: number): string;
export function formatMs(ms: number | null | undefined): string;
