#!/bin/sh
# Copies what the runtime image needs out of a built workspace into $1: each project's package.json
# (the workspace links in node_modules point at them) and dist, the SQL migrations the migrate command
# applies, and the container health probe. Sources, tests and build tooling stay behind.
# Run from the repository root after `npx nx run-many -t build`.
set -eu
out="${1:?usage: collect-runtime.sh <output-dir>}"
mkdir -p "$out"
cp package.json "$out/"
for project in apps/* libs/* tools/*; do
  [ -f "$project/package.json" ] || continue
  mkdir -p "$out/$project"
  cp "$project/package.json" "$out/$project/"
  if [ -d "$project/dist" ]; then
    cp -R "$project/dist" "$out/$project/"
  fi
done
mkdir -p "$out/prisma" "$out/docker"
cp -R prisma/migrations "$out/prisma/"
cp docker/healthcheck.mjs "$out/docker/"
