#!/usr/bin/env bash
# Makes debian:bookworm-slim (docker/mosquitto/Dockerfile, the `mqtt` profile) available. Pulled when Docker Hub
# answers; otherwise a local stand-in: a minbase Debian bookworm whose apt sources are Debian's own mirror, so the
# Dockerfile's `apt-get install mosquitto` works as on the real image.
set -euo pipefail
tag=debian:bookworm-slim
if docker image inspect "$tag" >/dev/null 2>&1; then exit 0; fi
if timeout 60 docker pull -q "$tag" >/dev/null 2>&1; then exit 0; fi

echo "stand-in-debian-image: $tag cannot be pulled; building a local stand-in" >&2
command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
rootfs=$(mktemp -d /tmp/bookworm-slim-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >/dev/null
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["bash"]' - "$tag" >/dev/null
echo "stand-in-debian-image: built $tag ($(docker image inspect -f '{{.Size}}' "$tag") bytes)" >&2
