/** Settings every floor process reads; the runner always sets them. */
export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** Subjects of the raw-NATS floor: its own, so it never answers the real services' requests. */
export const FLOOR_DEBIT_SUBJECT = 'bench.floor.debit';
export const FLOOR_CATALOG_SUBJECT = 'bench.floor.catalog';
export const FLOOR_QUEUE = 'bench-floor';

/** Where the runner puts the payload the floors serve for an app: the data our gateway answered for the same call. */
export function floorPayloadKey(appId: string): string {
  return `bench:floor:payload:${appId}`;
}

/** Where the @x402/express floor tells how long it waited on the facilitator since the last read. */
export const FACILITATOR_WAIT_PATH = '/bench/facilitator-wait';

/** The envelope around already-encoded JSON data, without parsing it. */
export function envelopeAround(rawData: string): string {
  return `{"status":200,"message":"ok","data":${rawData}}`;
}
