import { FACILITATOR_WAIT_PATH } from './floors/floor-env.js';

/** Time a server spent waiting on the facilitator, as its own facilitator client timed it. */
export interface FacilitatorWait {
  ms: number;
  calls: number;
}

/** Reads a server's facilitator wait since the previous read. */
export type FacilitatorWaitSource = () => Promise<FacilitatorWait>;

const HISTOGRAM = 'appcat_x402_facilitator_request_seconds';

/**
 * Ours: payments' `appcat_x402_facilitator_request_seconds` histogram (every verify and settle, timed
 * from the facilitator client's call to its answer), read from its ops port; each read returns the
 * growth of its sum and count since the previous one. Only that metric is asked for: rendering every
 * metric after each call cost payments about half a millisecond of CPU and left garbage collected
 * during the next, timed, call.
 */
export function paymentsFacilitatorWait(opsUrl: string): FacilitatorWaitSource {
  let last: FacilitatorWait | null = null;
  return async () => {
    const text = await (await fetch(`${opsUrl}/metrics?name=${HISTOGRAM}`)).text();
    const now = { ms: sumSeries(text, `${HISTOGRAM}_sum`) * 1000, calls: sumSeries(text, `${HISTOGRAM}_count`) };
    const since = last ? { ms: now.ms - last.ms, calls: now.calls - last.calls } : now;
    last = now;
    return since;
  };
}

/** The @x402/express floor: its timed copy of the library's facilitator client, read (and reset) over HTTP. */
export function floorFacilitatorWait(url: string): FacilitatorWaitSource {
  return async () => (await (await fetch(url + FACILITATOR_WAIT_PATH)).json()) as FacilitatorWait;
}

/** The sum over every label set of one series in the Prometheus text format. */
export function sumSeries(text: string, series: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(series)) continue;
    const rest = line.slice(series.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}
