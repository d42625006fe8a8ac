import type { EmulatorRequest, EmulatorResponse } from '../http.js';

/**
 * What a request hook or an injected fault does to a request before the emulator answers it: wait
 * (for a gate, a delay, or both), answer something else, or drop the connection.
 */
export interface RequestFault {
  /**
   * Answer only once this settles (then after `delayMs`). In-process hooks only: a test holds
   * requests at the upstream until it opens the gate, so "N at once" is reached by construction, not
   * by a delay sized for the machine's speed.
   */
  until?: Promise<unknown>;
  delayMs?: number;
  /** Answer with this instead of the real response. */
  response?: EmulatorResponse;
  /** Destroy the socket without answering, as a reset connection would. */
  destroy?: boolean;
}

export type RequestHook = (request: EmulatorRequest) => RequestFault | undefined;
