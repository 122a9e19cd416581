#!/bin/sh
# Runs once, when the primary's data directory is created (the image's /docker-entrypoint-initdb.d;
# docs/operations-database.md, "Failover"): lets the standby stream the WAL (the superuser
# `payaccept` replicates, with the same password as for everything else, from the compose network),
# and makes every commit wait for the standby `postgres-standby`. In postgresql.conf, not on the
# command line, so that the runbook's ALTER SYSTEM can turn the wait off while the standby is lost.
set -eu
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "${PGDATA}/pg_hba.conf"
cat >> "${PGDATA}/postgresql.conf" <<CONF
wal_level = replica
wal_keep_size = 1GB
synchronous_commit = on
synchronous_standby_names = 'postgres-standby'
CONF
