/**
 * anvil's default accounts, derived from the public "test test … junk" mnemonic. Their keys are
 * published everywhere: they hold value only on local chains and must never be used elsewhere.
 */
export interface DevAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

export interface LocalChainAccounts {
  /** Signs x402 payments; funded with test USDC when the chain starts (anvil account 0). */
  payer: DevAccount;
  /** Submits settlements and pays their gas: the dev facilitator's default key (anvil account 1). */
  facilitator: DevAccount;
  /** Receives payments: the `payTo` of local payment requirements (anvil account 2). */
  payTo: DevAccount;
  /**
   * Sends the chain's own mint transactions (anvil account 3), so that no other account's nonce is
   * consumed behind its owner's back.
   */
  minter: DevAccount;
}

export const DEV_ACCOUNTS: LocalChainAccounts = {
  payer: {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  facilitator: {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  payTo: {
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
  minter: {
    address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  },
};
