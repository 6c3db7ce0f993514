#!/usr/bin/env bash
# The main job on a fresh machine: install, index the bundled sample, ask it something.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
mkdir -p build
"$VENV/bin/cqlindex" build samples/*.pgn -o build/sample.duckdb
"$VENV/bin/cqlindex" info build/sample.duckdb
echo
echo "The positions most games reached between moves 4 and 8 (grouped by Zobrist key):"
"$VENV/bin/cqlindex" sql build/sample.duckdb "
    SELECT count(DISTINCT gamenumber) AS games, any_value(movenumber) AS move,
           any_value(san) AS last_move, any_value(wtm) AS white_to_move
    FROM positions WHERE ply BETWEEN 6 AND 16
    GROUP BY zobrist ORDER BY games DESC, move LIMIT 5"
echo
echo "CQL: every mate, in the main line and in variations:"
"$VENV/bin/cqlindex" query build/sample.duckdb 'mate' --variations --format table
echo
echo "CQL: a queen given up, then mate (samples/sacrifice.cql), either colour:"
"$VENV/bin/cqlindex" query build/sample.duckdb -f samples/sacrifice.cql --format table
echo
echo "How that query runs (--explain prints the SQL after its comment lines, which say where each filter is decided):"
"$VENV/bin/cqlindex" query build/sample.duckdb -f samples/sacrifice.cql --explain | grep '^--'
echo
echo "The mates as a page of boards (open it in a browser) and as PGN with the matches marked:"
"$VENV/bin/cqlindex" query build/sample.duckdb 'mate' --variations -o build/mates.html
"$VENV/bin/cqlindex" query build/sample.duckdb 'mate' --variations -o build/mates.pgn
