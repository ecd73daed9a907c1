#!/usr/bin/env bash
# The Docker suite on a real engine: installs Debian's docker.io when missing, starts dockerd when none
# answers (and stops it again at the end), provides the base image, then runs test/docker with vitest.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v dockerd >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
started=""
if ! docker info >/dev/null 2>&1; then
  dockerd >/tmp/homeops-dockerd.log 2>&1 &
  started=$!
  trap 'kill "$started" 2>/dev/null; wait "$started" 2>/dev/null || true' EXIT
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -20 /tmp/homeops-dockerd.log; exit 1; }
fi

bash test/docker/stand-in-base-image.sh
bash test/docker/stand-in-postgres-image.sh
bash test/docker/stand-in-debian-image.sh
npx -y pnpm@10 exec vitest run --config test/docker/vitest.config.ts "$@"
