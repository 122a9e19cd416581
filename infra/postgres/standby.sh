#!/bin/sh
# The standby's entrypoint (docs/operations-database.md, "Failover"): on its first start, a copy of
# the primary by pg_basebackup (-R: it streams from the primary from then on; -C -S: a replication
# slot keeps the WAL it has not received yet), then PostgreSQL as a hot standby named
# `postgres-standby`, the name the primary's synchronous_standby_names waits for. Once promoted
# (`pg_ctl promote`), it is the primary and stays one across restarts.
set -eu
if [ ! -s "${PGDATA}/PG_VERSION" ]; then
  until pg_isready -h postgres -U "${POSTGRES_USER}" -q; do sleep 1; done
  export PGPASSWORD="${POSTGRES_PASSWORD}"
  pg_basebackup -h postgres -U "${POSTGRES_USER}" -D "${PGDATA}" -X stream -R -C -S standby --checkpoint=fast
  # The copy has the primary's postgresql.conf: once promoted, this server has no standby to wait for
  # until one is made and named (the runbook's last step).
  echo "synchronous_standby_names = ''" >> "${PGDATA}/postgresql.conf"
  chmod 0700 "${PGDATA}"
fi
exec postgres -c cluster_name=postgres-standby -c hot_standby=on
