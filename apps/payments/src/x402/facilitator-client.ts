import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { attachedContext, type Context, inContext, OUTCOME, withSpan } from '@appcat/ops';
import {
  FacilitatorResponseError,
  FacilitatorTimeoutError,
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
  type VerifyResponse,
} from '@x402/core/types';

type FacilitatorConfig = ConstructorParameters<typeof HTTPFacilitatorClient>[0];
type Operation = 'verify' | 'settle';
/** How a facilitator request ended: with an answer (a success or a refusal), without one, or out of time. */
export type FacilitatorOutcome = 'answered' | 'failed' | 'timeout';
/** Told of every verify and settle: the time from the call to its answer, so operators can tell the facilitator's latency from ours. */
export type FacilitatorObserver = (operation: Operation, outcome: FacilitatorOutcome, seconds: number) => void;

/** An idle connection is closed before a typical server's keep-alive ends (Node's agent also honours the server's hint). */
const IDLE_SOCKET_MS = 4_000;
const EXCERPT_LENGTH = 200;
const VERIFY_FIELDS = ['isValid', 'invalidReason', 'invalidMessage', 'payer', 'extensions', 'extra'] as const;
const SETTLE_FIELDS = [
  'success',
  'errorReason',
  'errorMessage',
  'payer',
  'transaction',
  'network',
  'amount',
  'extensions',
  'extra',
] as const;

/**
 * A verify or settle that never reached the facilitator: no connection to it could be opened (refused,
 * unresolvable, no route), so nothing was sent and nothing can have been settled.
 */
export class FacilitatorUnreachableError extends Error {
  constructor(operation: Operation, cause: unknown) {
    super(`facilitator ${operation}: no connection: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'FacilitatorUnreachableError';
  }
}

/**
 * @x402/core's facilitator client with `verify` and `settle` sent over node:http(s) with a keep-alive
 * agent instead of `fetch`: on the paid call's path, `fetch` cost about twice the CPU per request (its
 * streams write the body in pieces). Requests, answers and errors are those of HTTPFacilitatorClient:
 * the same JSON body and auth headers, VerifyError/SettleError for a refusal the facilitator explains,
 * FacilitatorResponseError for an answer that is not one, FacilitatorTimeoutError once `timeoutMs` has
 * passed. A redirect is left to the library's `fetch` path (which follows it); `/supported` stays there.
 */
export class FacilitatorClient extends HTTPFacilitatorClient {
  private readonly endpoints: Record<Operation, URL>;
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;

  private readonly observe: FacilitatorObserver;

  constructor(config: FacilitatorConfig & { url: string; observe: FacilitatorObserver }) {
    super(config);
    this.observe = config.observe;
    this.endpoints = { verify: new URL(`${this.url}/verify`), settle: new URL(`${this.url}/settle`) };
    const secure = this.endpoints.verify.protocol === 'https:';
    this.agent = secure
      ? new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS })
      : new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
    this.send = secure ? httpsRequest : httpRequest;
  }

  override verify(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): Promise<VerifyResponse> {
    return this.timed('verify', paymentPayload, (trace) => this.verifyOnce(paymentPayload, paymentRequirements, trace));
  }

  override settle(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): Promise<SettleResponse> {
    return this.timed('settle', paymentPayload, (trace) => this.settleOnce(paymentPayload, paymentRequirements, trace));
  }

  /** Closes the idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * One facilitator request, measured; with tracing on, the `x402.facilitator` span (the HTTP request
   * inside it), a child of the context PaymentHolds attached to the payment.
   */
  private timed<T>(
    operation: Operation,
    payment: PaymentPayload,
    request: (trace: Context | undefined) => Promise<T>,
  ): Promise<T> {
    return withSpan(
      'x402.facilitator',
      { 'appcat.facilitator.operation': operation },
      (span) =>
        this.measured(
          operation,
          () => request(span.context),
          (outcome) => span.set({ [OUTCOME]: outcome }),
        ),
      { parent: attachedContext(payment) },
    );
  }

  private async measured<T>(
    operation: Operation,
    request: () => Promise<T>,
    settled: (outcome: FacilitatorOutcome) => void,
  ): Promise<T> {
    const began = performance.now();
    let outcome: FacilitatorOutcome = 'failed';
    try {
      const answer = await request();
      outcome = 'answered';
      return answer;
    } catch (error) {
      if (error instanceof VerifyError || error instanceof SettleError) outcome = 'answered';
      else if (error instanceof FacilitatorTimeoutError) outcome = 'timeout';
      throw error;
    } finally {
      settled(outcome);
      // A failing observer must not turn an answer (a settlement, perhaps) into an error.
      try {
        this.observe(operation, outcome, (performance.now() - began) / 1000);
      } catch {
        // metrics only
      }
    }
  }

  private async verifyOnce(
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
    trace: Context | undefined,
  ): Promise<VerifyResponse> {
    const answer = await this.post('verify', paymentPayload, paymentRequirements, trace);
    if (answer.status >= 300 && answer.status < 400) return super.verify(paymentPayload, paymentRequirements);
    const data = parseAnswer('verify', answer);
    if (answer.status >= 400) throw new VerifyError(answer.status, data as VerifyResponse);
    if (
      typeof data.isValid !== 'boolean' ||
      !optionalStrings(data, 'invalidReason', 'invalidMessage', 'payer') ||
      !optionalRecords(data)
    ) {
      throw new FacilitatorResponseError(`Facilitator verify returned invalid data: ${excerpt(answer.text)}`);
    }
    return pick(data, VERIFY_FIELDS) as unknown as VerifyResponse;
  }

  private async settleOnce(
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
    trace: Context | undefined,
  ): Promise<SettleResponse> {
    const answer = await this.post('settle', paymentPayload, paymentRequirements, trace);
    if (answer.status >= 300 && answer.status < 400) return super.settle(paymentPayload, paymentRequirements);
    const data = parseAnswer('settle', answer);
    if (answer.status >= 400) throw new SettleError(answer.status, data as unknown as SettleResponse);
    if (
      typeof data.success !== 'boolean' ||
      typeof data.transaction !== 'string' ||
      typeof data.network !== 'string' ||
      !optionalStrings(data, 'errorReason', 'errorMessage', 'payer', 'amount') ||
      !optionalRecords(data)
    ) {
      throw new FacilitatorResponseError(`Facilitator settle returned invalid data: ${excerpt(answer.text)}`);
    }
    return pick(data, SETTLE_FIELDS) as unknown as SettleResponse;
  }

  /** Sends one request, headers and body in one write, and reads the whole answer. */
  private async post(
    operation: Operation,
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
    /** The `x402.facilitator` span's context: the HTTP request's span is its child. */
    trace: Context | undefined,
  ): Promise<{ status: number; text: string }> {
    const body = jsonBody({ x402Version: paymentPayload.x402Version, paymentPayload, paymentRequirements });
    const auth = (await this.createAuthHeaders(operation)).headers;
    const signal = AbortSignal.timeout(this.timeoutMs);
    // Whether the request had a connection: an error before it has one means nothing was sent (a
    // reused keep-alive connection counts as one, so a reset on it stays an unknown outcome).
    let connected = false;
    try {
      return await inContext(
        trace,
        () =>
          new Promise<{ status: number; text: string }>((resolve, reject) => {
            const request = this.send(
              this.endpoints[operation],
              {
                method: 'POST',
                agent: this.agent,
                signal,
                headers: { ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
              },
              (response: IncomingMessage) => {
                let text = '';
                response.setEncoding('utf8');
                response.on('data', (chunk: string) => (text += chunk));
                response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
                response.on('error', reject);
                response.on('close', () => {
                  if (!response.complete)
                    reject(new Error(`facilitator ${operation} connection closed before the answer was complete`));
                });
              },
            );
            request.on('socket', (socket) => {
              if (!socket.connecting) connected = true;
              else socket.once('connect', () => (connected = true));
            });
            request.on('error', reject);
            request.end(body);
          }),
      );
    } catch (error) {
      if (signal.aborted) throw new FacilitatorTimeoutError(operation, this.timeoutMs);
      if (!connected) throw new FacilitatorUnreachableError(operation, error);
      throw error;
    }
  }
}

/**
 * The request's JSON, bigints as decimal text (as the library sends them). A replacer function is
 * called for every value of the payload, bazaar schema included, so it is used only when plain
 * JSON.stringify meets a bigint (it throws on one); payloads decoded from a header hold none.
 */
function jsonBody(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(value, (_, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));
  }
}

/** The answer's JSON object; a refusal without one is a plain error, as in HTTPFacilitatorClient. */
function parseAnswer(operation: Operation, answer: { status: number; text: string }): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(answer.text);
  } catch {
    data = undefined;
  }
  const marker = operation === 'verify' ? 'isValid' : 'success';
  if (answer.status >= 400) {
    if (typeof data === 'object' && data !== null && marker in data) return data as Record<string, unknown>;
    throw new Error(
      `Facilitator ${operation} failed (${answer.status}): ${excerpt(data === undefined ? answer.text : JSON.stringify(data))}`,
    );
  }
  if (data === undefined)
    throw new FacilitatorResponseError(`Facilitator ${operation} returned invalid JSON: ${excerpt(answer.text)}`);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new FacilitatorResponseError(`Facilitator ${operation} returned invalid data: ${excerpt(answer.text)}`);
  }
  return data as Record<string, unknown>;
}

function optionalStrings(data: Record<string, unknown>, ...names: string[]): boolean {
  return names.every((name) => data[name] === undefined || data[name] === null || typeof data[name] === 'string');
}

function optionalRecords(data: Record<string, unknown>): boolean {
  return ['extensions', 'extra'].every(
    (name) =>
      data[name] === undefined || data[name] === null || (typeof data[name] === 'object' && !Array.isArray(data[name])),
  );
}

/** The answer's known fields, those sent as null left out: what the library's schemas keep. */
function pick(data: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const name of names) if (data[name] !== undefined && data[name] !== null) result[name] = data[name];
  return result;
}

/** As the library words it. */
function excerpt(text: string): string {
  const compact = text.trim().replace(/\s+/g, ' ');
  if (!compact) return '<empty response>';
  return compact.length > EXCERPT_LENGTH ? `${compact.slice(0, EXCERPT_LENGTH - 3)}...` : compact;
}
