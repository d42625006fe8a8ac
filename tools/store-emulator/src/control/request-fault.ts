import type { EmulatorRequest, EmulatorResponse } from '../http.js';

/**
 * What a request hook or an injected fault does to a request before the emulator answers it: wait,
 * answer something else, or drop the connection.
 */
export interface RequestFault {
  delayMs?: number;
  /** Answer with this instead of the real response. */
  response?: EmulatorResponse;
  /** Destroy the socket without answering, as a reset connection would. */
  destroy?: boolean;
}

export type RequestHook = (request: EmulatorRequest) => RequestFault | undefined;
