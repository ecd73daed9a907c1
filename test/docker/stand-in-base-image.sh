#!/usr/bin/env bash
# Makes node:20-bookworm-slim available to the classic builder. Pulled when Docker Hub answers;
# otherwise a local stand-in: a minbase Debian bookworm plus this machine's own node and npm, and its
# CA bundle (the registry here is reached through a TLS-inspecting proxy).
set -euo pipefail
tag=node:20-bookworm-slim
if docker image inspect "$tag" >/dev/null 2>&1; then exit 0; fi
if timeout 60 docker pull -q "$tag" >/dev/null 2>&1; then exit 0; fi

echo "stand-in-base-image: $tag cannot be pulled; building a local stand-in" >&2
command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
rootfs=$(mktemp -d /tmp/bookworm-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >/dev/null

node_bin=$(command -v node)
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
# The official image's user: node, uid and gid 1000.
echo 'node:x:1000:' >>"$rootfs/etc/group"
echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$rootfs/etc/passwd"
echo 'node:*:20000:0:99999:7:::' >>"$rootfs/etc/shadow"
install -d -o 1000 -g 1000 "$rootfs/home/node"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

tar -C "$rootfs" -c . | docker import \
  --change "ENV NODE_VERSION=$("$node_bin" -p 'process.versions.node')" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
echo "stand-in-base-image: built $tag ($(docker image inspect -f '{{.Size}}' "$tag") bytes)" >&2
