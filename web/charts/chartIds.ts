// The charts of the connection stack, in their order (keys 1–6, `#charts=`, the CLI's
// `render --chart`): one list for the page, the address and the renderer.

// 'events' (issue 17 item 7) comes last so that keys 1–5 keep their charts.
export const CHART_IDS = ['throughput', 'inflight', 'stalls', 'sequence', 'rtt', 'events'] as const;
export type ChartId = (typeof CHART_IDS)[number];
