#!/usr/bin/env bash
# Run once by the postgres image when it initializes the primary's data directory
# (/docker-entrypoint-initdb.d): lets the standbys stream the WAL as the `cairn` user.
# The image's own rules cover every database but not replication connections.
set -euo pipefail
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "${PGDATA}/pg_hba.conf"
