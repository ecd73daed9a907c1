#!/bin/sh
# Runs the service as the unprivileged user `node`. Started as root (the image's default), it first
# hands /app/data to node: Docker creates a missing bind-mount source as root, and a host folder or a
# volume from an older image may belong to another user. That needs CHOWN, DAC_READ_SEARCH (to walk
# folders of mode 0700 that belong to someone else), SETUID/SETGID for the switch and SETPCAP to empty
# the bounding set (without it setpriv leaves the set as it is, silently): all the compose files leave
# the container. The service then runs with no capabilities, an empty bounding set and no-new-privs, so
# nothing it starts can gain any (setuid binaries included). Started as another user (`user:` in
# compose), it runs as that user and leaves ownership alone.
set -eu
data=/app/data
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$data"
  find "$data" -xdev \( ! -user node -o ! -group node \) -exec chown -h node:node {} +
  exec setpriv --reuid=node --regid=node --init-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"
fi
exec "$@"
