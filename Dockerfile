# One image for every service (gateway, payments, catalog, the migration step, the admin CLI and the
# local-only store emulator, chain and facilitator): the command picks the service. See
# docs/deployment.md for the commands, the ports and how to pin the base image by digest.
#
#   docker build -t appcat:local .
#   docker run --rm appcat:local node apps/admin/dist/main.js --help

# Exact version tag so a rebuild gets the same Node; production builds pin the digest too
# (--build-arg NODE_IMAGE=node:20.19.5-bookworm-slim@sha256:<digest>). Debian rather than Alpine:
# the anvil binary the local chain runs is linked against glibc.
ARG NODE_IMAGE=node:20.19.5-bookworm-slim

# Only the manifests, so the `npm ci` layers below are reused until a package.json or the lock changes.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find apps libs tools -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# Everything the build needs. Install scripts stay off, as on the development machines: nothing here
# needs one (anvil ships in its platform package; `prisma generate` runs offline in the build).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false CI=true
COPY --from=manifests /manifests/ ./
RUN npm ci --ignore-scripts --no-audit --no-fund

# The same build command as CI. The Prisma CLI wants a schema engine binary even for `generate`,
# which never runs it: any executable will do.
FROM deps AS build
ENV PRISMA_SCHEMA_ENGINE_BINARY=/bin/true CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
COPY . .
RUN npx nx run-many -t build --outputStyle=static \
 && sh docker/collect-runtime.sh /runtime

# Production dependencies only: no compilers, test tools or Nx in the final image. npm keeps the dev
# tools a production package names as optional peers (the Prisma CLI, TypeScript: 250 MB); the prune
# script drops them.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
COPY docker/prune-dev-optional.mjs /tmp/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && node /tmp/prune-dev-optional.mjs \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
LABEL org.opencontainers.image.title="appcat" \
      org.opencontainers.image.description="Pay-per-call App Store catalog gateway: gateway, payments, catalog, migrations, admin CLI"
# MALLOC_ARENA_MAX: package.json's config.serviceEnvironment (deploy-check keeps it in step): two glibc
# malloc arenas instead of one per thread that allocates, about 10 MB less resident per service.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    OPS_HOST=0.0.0.0 \
    STORE_EMULATOR_HOST=0.0.0.0
WORKDIR /app
# Owned by root and not writable by the service user: a compromised process cannot change the code.
COPY --from=prod-deps /app/ ./
COPY --from=build /runtime/ ./
# The node image's unprivileged user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 3000 9100 9101 9102
# Probes OPS_PORT's /healthz when set, else the gateway's public /healthz (the default command).
# Compose and Kubernetes define their own checks per service.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "docker/healthcheck.mjs"]
# Each service starts with package.json's config.serviceNodeOptions on its command line (Node does not take
# --single-threaded-gc from NODE_OPTIONS); deploy-check keeps every copy in step.
CMD ["node", "--max-semi-space-size=4", "--single-threaded-gc", "--no-allocation-site-pretenuring", "apps/gateway/dist/main.js"]
