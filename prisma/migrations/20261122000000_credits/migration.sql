-- Prepaid credits: API keys, their top-ups and the per-call debits written behind from Redis.
-- Every amount is an integer count of micro-USD (BIGINT). The CHECK constraints state invariants that
-- schema.prisma cannot express.

-- CreateEnum
CREATE TYPE "top_up_method" AS ENUM ('admin', 'x402');

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "key_hash" CHAR(64) NOT NULL,
    "prefix" VARCHAR(12) NOT NULL,
    "topped_up_micros" BIGINT NOT NULL DEFAULT 0,
    "spent_micros" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"),
    -- Only the SHA-256 hex digest of a key is ever stored.
    CONSTRAINT "api_keys_key_hash_sha256_hex" CHECK ("key_hash" ~ '^[0-9a-f]{64}$'),
    CONSTRAINT "api_keys_prefix_format" CHECK ("prefix" ~ '^ak_' AND char_length("prefix") = 12),
    CONSTRAINT "api_keys_topped_up_non_negative" CHECK ("topped_up_micros" >= 0),
    -- spent may exceed topped_up after a Redis loss (docs/credits.md), so only its sign is checked.
    CONSTRAINT "api_keys_spent_non_negative" CHECK ("spent_micros" >= 0),
    CONSTRAINT "api_keys_revoked_after_created" CHECK ("revoked_at" IS NULL OR "revoked_at" >= "created_at")
);

-- CreateTable
CREATE TABLE "top_ups" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "api_key_id" UUID NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "method" "top_up_method" NOT NULL,
    "external_ref" TEXT NOT NULL,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "top_ups_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "top_ups_amount_positive" CHECK ("amount_micros" > 0),
    CONSTRAINT "top_ups_external_ref_not_blank" CHECK (char_length("external_ref") > 0)
);

-- CreateTable
CREATE TABLE "credit_debits" (
    "id" TEXT NOT NULL,
    "api_key_id" UUID NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "route" TEXT NOT NULL,
    "charged_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "credit_debits_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "credit_debits_amount_positive" CHECK ("amount_micros" > 0)
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_prefix_idx" ON "api_keys"("prefix");

-- CreateIndex
CREATE UNIQUE INDEX "top_ups_external_ref_key" ON "top_ups"("external_ref");

-- CreateIndex
CREATE INDEX "top_ups_api_key_id_created_at_idx" ON "top_ups"("api_key_id", "created_at");

-- CreateIndex
CREATE INDEX "credit_debits_api_key_id_charged_at_idx" ON "credit_debits"("api_key_id", "charged_at");

-- AddForeignKey
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_debits" ADD CONSTRAINT "credit_debits_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
