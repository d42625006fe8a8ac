-- x402 settlements: one row per payment the facilitator settled for us, for a priced call or a top-up,
-- with the request that it paid for. Lets reconciliation prove that every delivery was paid exactly once
-- and every payment bought at most one delivery (docs/security.md, `npm run admin -- reconcile`).

-- CreateTable
CREATE TABLE "x402_settlements" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "payment_id" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "transaction" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "purpose" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "resource_url" TEXT NOT NULL,
    "settled_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "x402_settlements_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "x402_settlements_amount_positive" CHECK ("amount_micros" > 0),
    CONSTRAINT "x402_settlements_purpose_known" CHECK ("purpose" IN ('call', 'topup')),
    CONSTRAINT "x402_settlements_transaction_not_blank" CHECK (char_length("transaction") > 0)
);

-- CreateIndex
CREATE UNIQUE INDEX "x402_settlements_payment_id_key" ON "x402_settlements"("payment_id");

-- CreateIndex
CREATE UNIQUE INDEX "x402_settlements_network_transaction_key" ON "x402_settlements"("network", "transaction");

-- CreateIndex
CREATE INDEX "x402_settlements_request_id_idx" ON "x402_settlements"("request_id");
