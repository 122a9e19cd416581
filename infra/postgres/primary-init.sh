#!/bin/sh
# Runs once, when the primary's data directory is created (the image's /docker-entrypoint-initdb.d):
# lets the standby stream the WAL (docs/operations-database.md, "Failover"). The superuser
# `payaccept` replicates, with the same password as for everything else, from the compose network.
set -eu
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "${PGDATA}/pg_hba.conf"
