import { ErrorCode } from '@appcat/contracts';

/** What a script can rely on; documented in the CLI's help. */
export const ExitCode = {
  Ok: 0,
  /** Anything unexpected: an internal error in payments, a reply this CLI does not understand. */
  Failure: 1,
  /** Bad command line, or an argument payments refused as invalid. */
  Usage: 2,
  /** No key matches the name, or a prefix matches several. */
  NotFound: 3,
  /** Payments could not be reached: NATS is down, no payments replica answers, or it timed out. */
  Unreachable: 4,
  /** Payments answered but could not reach its Redis or Postgres. */
  StoreUnavailable: 5,
  /** reconcile: the books differ. */
  Mismatch: 6,
  /** reconcile: nothing differs, but some debits or settlement records had not reached Postgres yet. */
  Pending: 7,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export function exitCodeFor(code: string): ExitCode {
  switch (code) {
    case ErrorCode.InvalidArgument:
    case 'USAGE':
      return ExitCode.Usage;
    case ErrorCode.AdminKeyNotFound:
    case ErrorCode.AdminKeyAmbiguous:
      return ExitCode.NotFound;
    case ErrorCode.ServiceUnavailable:
    case ErrorCode.ServiceTimeout:
      return ExitCode.Unreachable;
    case ErrorCode.CreditStoreUnavailable:
      return ExitCode.StoreUnavailable;
    default:
      return ExitCode.Failure;
  }
}
