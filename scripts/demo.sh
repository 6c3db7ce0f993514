#!/usr/bin/env bash
# The main job on a fresh machine: install, index the bundled sample, ask it something.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
mkdir -p build
"$VENV/bin/cqlindex" build samples/gnuchess-300.pgn -o build/sample.duckdb
"$VENV/bin/cqlindex" info build/sample.duckdb
echo
echo "The positions most games reached between moves 4 and 8 (grouped by Zobrist key):"
"$VENV/bin/cqlindex" sql build/sample.duckdb "
    SELECT count(DISTINCT gamenumber) AS games, any_value(movenumber) AS move,
           any_value(san) AS last_move, any_value(wtm) AS white_to_move
    FROM positions WHERE ply BETWEEN 6 AND 16
    GROUP BY zobrist ORDER BY games DESC, move LIMIT 5"
echo
echo "CQL: a queen against two rooks, for either colour (flipcolor), game numbers:"
"$VENV/bin/cqlindex" query build/sample.duckdb 'flipcolor {Q == 1 q == 0 r == 2 R == 0}'
echo
echo "How that query runs (--explain prints the SQL; the last lines say where each filter is decided):"
"$VENV/bin/cqlindex" query build/sample.duckdb 'flipcolor {Q == 1 q == 0 r == 2 R == 0}' --explain | tail -2
echo
echo "The same query as a page of boards (open it in a browser) and as PGN with the matches marked:"
"$VENV/bin/cqlindex" query build/sample.duckdb 'flipcolor {Q == 1 q == 0 r == 2 R == 0}' -o build/queen-vs-rooks.html
"$VENV/bin/cqlindex" query build/sample.duckdb 'flipcolor {Q == 1 q == 0 r == 2 R == 0}' -o build/queen-vs-rooks.pgn
