#!/usr/bin/env bash
# Makes postgres:15-bookworm (docker-compose.postgres.yml) available. Pulled when Docker Hub answers;
# otherwise a local stand-in: a minbase Debian bookworm with Debian's postgresql-15 and an entrypoint that does
# what the official image's does for this project (POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB on first
# start, password auth from other hosts, pg_isready for the healthcheck).
set -euo pipefail
tag=postgres:15-bookworm
if docker image inspect "$tag" >/dev/null 2>&1; then exit 0; fi
if timeout 60 docker pull -q "$tag" >/dev/null 2>&1; then exit 0; fi

echo "stand-in-postgres-image: $tag cannot be pulled; building a local stand-in" >&2
command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
rootfs=$(mktemp -d /tmp/bookworm-postgres-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase --include=postgresql-15 bookworm "$rootfs" http://deb.debian.org/debian >/dev/null
# The package's own cluster is not used: the entrypoint makes one in PGDATA, as the official image does.
rm -rf "$rootfs"/var/lib/postgresql/15 "$rootfs"/etc/postgresql/15
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
set -eu
bin=/usr/lib/postgresql/15/bin
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  user="${POSTGRES_USER:-postgres}"
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pwfile && chown postgres /tmp/pwfile
  setpriv --reuid=postgres --regid=postgres --init-groups "$bin/initdb" -D "$PGDATA" -U "$user" --pwfile=/tmp/pwfile \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != "postgres" ]; then
    setpriv --reuid=postgres --regid=postgres --init-groups "$bin/postgres" --single -D "$PGDATA" postgres \
      <<SQL >/dev/null
CREATE DATABASE "$POSTGRES_DB" OWNER "$user";
SQL
  fi
fi
# docker stop sends SIGTERM, which PostgreSQL takes as a "smart" shutdown that waits for every client to leave; the
# official image stops with SIGINT (fast shutdown) instead, and so does this one.
setpriv --reuid=postgres --regid=postgres --init-groups "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' "$@" &
pid=$!
trap 'kill -INT "$pid"' TERM INT
while kill -0 "$pid" 2>/dev/null; do wait "$pid" || true; done
ENTRY
chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"
ln -sf /usr/lib/postgresql/15/bin/pg_isready "$rootfs/usr/local/bin/pg_isready"

tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'EXPOSE 5432' \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' - "$tag" >/dev/null
echo "stand-in-postgres-image: built $tag ($(docker image inspect -f '{{.Size}}' "$tag") bytes)" >&2
