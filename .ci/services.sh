#!/usr/bin/env bash
# Makes PostgreSQL (127.0.0.1:5432, user postgres, trust, database test) and Redis
# (127.0.0.1:6379) reachable: starts them if installed, installs them if not.
set -euo pipefail

need_apt=()
command -v redis-server >/dev/null || need_apt+=(redis-server)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi

if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1 || true)"
  if [ -z "$version" ]; then
    version="$(ls /usr/lib/postgresql | sort -V | tail -1)"
    pg_createcluster "$version" main
  fi
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\nlocal all postgres trust' "$hba"
  fi
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
fi

for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 5432 -q && redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break
  sleep 1
done
redis-cli -h 127.0.0.1 -p 6379 ping
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -c 'CREATE DATABASE test'
psql -h 127.0.0.1 -U postgres -d test -tAc 'select version()'
