import type { IncomingHttpHeaders } from 'node:http';

/** One request as the routes see it. */
export interface EmulatorRequest {
  method: string;
  /** The raw (still percent-encoded) path. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** A POST's body (Google Play's batchexecute); absent on other requests. */
  body?: string;
}

export interface EmulatorResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Answers a request it recognises, or returns undefined to let the next route try. */
export type Route = (request: EmulatorRequest) => EmulatorResponse | undefined;

/** iTunes Search answers JSON as text/javascript, after a few blank lines. */
export function itunesJson(status: number, body: unknown): EmulatorResponse {
  return {
    status,
    headers: { 'content-type': 'text/javascript; charset=utf-8' },
    body: `\n\n\n${JSON.stringify(body)}\n`,
  };
}

export function json(status: number, body: unknown): EmulatorResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
}

export function text(status: number, body: string, contentType: string): EmulatorResponse {
  return { status, headers: { 'content-type': contentType }, body };
}

export function empty(status: number): EmulatorResponse {
  return { status, body: '' };
}
