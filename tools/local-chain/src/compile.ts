import { readFileSync } from 'node:fs';
import solc from 'solc';

/** What the chain needs of a compiled contract: it is installed with anvil_setCode, never deployed. */
export interface ContractArtifact {
  contractName: string;
  compiler: string;
  abi: unknown[];
  deployedBytecode: `0x${string}`;
  /** Storage slot of each state variable, by name (decimal strings, as solc reports them). */
  storageSlots: Record<string, string>;
}

export const CONTRACT_NAMES = ['TestUSDC', 'Multicall3'] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: { deployedBytecode: { object: string } };
        storageLayout: { storage: { label: string; slot: string }[] };
      }
    >
  >;
}

// Both src/ and dist/ sit one level below the package root, so this resolves from either.
const contractsDir = new URL('../contracts/', import.meta.url);

/**
 * Compiles contracts/*.sol with solc-js (the compiler runs in-process, no download). Warnings fail
 * the build too: these contracts are small enough to keep clean.
 */
export function compileContracts(): Record<ContractName, ContractArtifact> {
  const sources = Object.fromEntries(
    CONTRACT_NAMES.map((name) => [
      `${name}.sol`,
      { content: readFileSync(new URL(`${name}.sol`, contractsDir), 'utf8') },
    ]),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      // Cancun is old enough for any anvil hardfork and new enough for everything used here.
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object', 'storageLayout'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const problems = (output.errors ?? []).filter((e) => e.severity !== 'info');
  if (problems.length > 0) {
    throw new Error(`solc ${solc.version()} reported:\n${problems.map((e) => e.formattedMessage).join('\n')}`);
  }
  const compiler = solc.version() as string;
  const artifacts = {} as Record<ContractName, ContractArtifact>;
  for (const name of CONTRACT_NAMES) {
    const compiled = output.contracts?.[`${name}.sol`]?.[name];
    if (!compiled) throw new Error(`solc produced no output for ${name}`);
    artifacts[name] = {
      contractName: name,
      compiler,
      abi: compiled.abi,
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      storageSlots: Object.fromEntries(compiled.storageLayout.storage.map((entry) => [entry.label, entry.slot])),
    };
  }
  return artifacts;
}
