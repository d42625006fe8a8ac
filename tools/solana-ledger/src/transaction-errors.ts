/**
 * litesvm reports a failed transaction with its own classes; JSON-RPC clients expect the validator's
 * serde shape of `TransactionError` ("BlockhashNotFound", `{ "InstructionError": [2, { "Custom": 1 }] }`).
 * The names are listed in litesvm's enum order (its const enums are not present at run time).
 */
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

export type RpcTransactionError = string | Record<string, unknown>;

function instructionError(error: unknown): unknown {
  if (typeof error === 'number') return INSTRUCTION_ERRORS[error] ?? `InstructionError${error}`;
  const fields = error as { code?: number; msg?: string };
  if (typeof fields.code === 'number') return { Custom: fields.code };
  if (typeof fields.msg === 'string') return { BorshIoError: fields.msg };
  return String(error);
}

/** The validator's JSON form of a litesvm transaction error. */
export function toRpcTransactionError(error: unknown): RpcTransactionError {
  if (typeof error === 'number') return TRANSACTION_ERRORS[error] ?? `TransactionError${error}`;
  const fields = error as {
    index?: number;
    accountIndex?: number;
    err?: () => unknown;
    constructor?: { name?: string };
  };
  const kind = fields.constructor?.name ?? '';
  if (kind === 'TransactionErrorInstructionError' && typeof fields.err === 'function') {
    return { InstructionError: [fields.index, instructionError(fields.err())] };
  }
  if (kind === 'TransactionErrorDuplicateInstruction') return { DuplicateInstruction: fields.index };
  if (kind === 'TransactionErrorInsufficientFundsForRent') {
    return { InsufficientFundsForRent: { account_index: fields.accountIndex } };
  }
  if (kind === 'TransactionErrorProgramExecutionTemporarilyRestricted') {
    return { ProgramExecutionTemporarilyRestricted: { account_index: fields.accountIndex } };
  }
  return String(error);
}
