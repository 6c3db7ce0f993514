-- cqlindex tables: the single source of truth for what a build writes.
-- Bitboards are signed BIGINT with bit i = square i (a1 = 0, h8 = 63): the same bits as
-- python-chess's unsigned ints, in a type every engine (DuckDB, Parquet, Spark) has.

-- One row per game, numbered as the reference CQL engine numbers games (1-based, continuing
-- across input files).
CREATE TABLE games (
    gamenumber      INTEGER PRIMARY KEY,
    event           VARCHAR,
    site            VARCHAR,
    date            VARCHAR,      -- as written in the PGN, e.g. '1951.??.??'
    round           VARCHAR,
    white           VARCHAR,
    black           VARCHAR,
    result          VARCHAR,      -- '1-0', '0-1', '1/2-1/2' or '*'
    year            SMALLINT,     -- from Date, NULL when unknown
    white_elo       SMALLINT,
    black_elo       SMALLINT,
    eco             VARCHAR,
    tags            MAP(VARCHAR, VARCHAR),  -- every tag of the game, the seven above included
    start_fen       VARCHAR,      -- NULL for the standard start position
    chess960        BOOLEAN,
    playable        BOOLEAN NOT NULL DEFAULT true, -- false: an unsupported variant or text that is not a
                                  -- game (see errors); queries leave such games out unless asked
    positions       INTEGER,      -- nodes of the game tree, variations included
    mainline_positions INTEGER,   -- nodes of the main line, root included
    source_file     VARCHAR,
    byte_offset     BIGINT,       -- where the game starts in the (decompressed) file
    line            INTEGER,      -- 1-based line of the game's first line
    errors          SMALLINT,     -- rows of this game in the errors table
    bad_move        VARCHAR       -- the move text where reading stopped (illegal, invalid, ambiguous)
);

-- One row per node of every game tree: main line and every variation.
CREATE TABLE positions (
    gamenumber      INTEGER NOT NULL,
    positionid      INTEGER NOT NULL,  -- pre-order index, as CQL's positionid
    parent          INTEGER,           -- positionid of the parent, NULL at the root
    child_index     SMALLINT NOT NULL, -- 0 = main continuation, 1.. = variations in PGN order
    children        SMALLINT NOT NULL, -- number of children (0 = the end of a line)
    last_descendant INTEGER NOT NULL,  -- descendants of p are ids p+1 .. last_descendant
    mainline        BOOLEAN NOT NULL,
    depth           SMALLINT NOT NULL, -- variation depth: non-first-child steps from the root
    ply             SMALLINT NOT NULL,
    movenumber      SMALLINT NOT NULL, -- CQL's: the start position is move 1 whatever the FEN says
    wtm             BOOLEAN NOT NULL,  -- white to move
    wk BIGINT NOT NULL, wq BIGINT NOT NULL, wr BIGINT NOT NULL,
    wb BIGINT NOT NULL, wn BIGINT NOT NULL, wp BIGINT NOT NULL,
    bk BIGINT NOT NULL, bq BIGINT NOT NULL, br BIGINT NOT NULL,
    bb BIGINT NOT NULL, bn BIGINT NOT NULL, bp BIGINT NOT NULL,
    material        BIGINT NOT NULL,   -- piece counts, 4 bits each: wp wn wb wr wq bp bn bb br bq from
                                       -- the lowest bits (cqlindex/board/material.py); kings not counted
    castling_rights BIGINT NOT NULL,   -- python-chess's mask of rooks that may still castle
    ep_square       UTINYINT,          -- square behind a pawn that just made a double step
    halfmove_clock  SMALLINT NOT NULL,
    move_from       UTINYINT,          -- the move that led here (NULL at the root)
    move_to         UTINYINT,          -- for castling: the king's destination (g1, c1, g8, c8)
    move_piece      UTINYINT,          -- piece type that moved: 1 pawn .. 6 king
    captured        UTINYINT,          -- piece type captured, NULL if none
    promotion       UTINYINT,          -- piece type promoted to, NULL if none
    castle          UTINYINT,          -- 1 = O-O, 2 = O-O-O, NULL otherwise
    en_passant      BOOLEAN NOT NULL,
    null_move       BOOLEAN NOT NULL,
    capture_square  UTINYINT,          -- square of the captured piece (differs from move_to en passant)
    rook_from       UTINYINT,          -- castling: the rook's square before and after (Chess960 exact)
    rook_to         UTINYINT,
    san             VARCHAR,
    is_check        BOOLEAN NOT NULL,
    is_mate         BOOLEAN NOT NULL,
    is_stalemate    BOOLEAN NOT NULL,
    legal_moves     UTINYINT NOT NULL,
    comment         VARCHAR,           -- comment after the move (at the root: before the first move)
    comment_before  VARCHAR,           -- comment before the first move of a variation
    nags            SMALLINT[],        -- numeric annotation glyphs, as $n in the PGN
    zobrist         BIGINT NOT NULL,   -- polyglot key, as chess.polyglot.zobrist_hash, signed
    white_attacks   BIGINT NOT NULL,   -- squares White attacks (CQL: pinned pieces attack too)
    black_attacks   BIGINT NOT NULL,   -- squares Black attacks
    pinned          BIGINT NOT NULL,   -- pieces pinned to their own king, either colour (board/pins.py)
    white_attacks_twice BIGINT NOT NULL, -- squares two or more white pieces attack (board/twice.py)
    black_attacks_twice BIGINT NOT NULL  -- squares two or more black pieces attack
);

-- Where each game's positions lie in the storage of positions: rows first_row ..
-- first_row + positions - 1 (DuckDB rowids), in positionid order. A build or an add writes it
-- only after checking that every row lies so (cqlindex/store/rowmap.py); a query then selects
-- the rowids of its matches and maps them back here instead of reading gamenumber and
-- positionid. Local to this file: an export leaves it out, and an index without it is read
-- the slower way.
CREATE TABLE game_rows (
    gamenumber      INTEGER NOT NULL,
    first_row       BIGINT NOT NULL,
    positions       INTEGER NOT NULL
);

-- Every game that could not be read completely. The game is still in games/positions as far
-- as it could be read.
CREATE TABLE errors (
    source_file     VARCHAR NOT NULL,
    gamenumber      INTEGER NOT NULL,
    line            INTEGER NOT NULL,  -- 1-based line in the (decompressed) file
    message         VARCHAR NOT NULL
);

-- Square maps of the basic transforms of CQL (dihedral, colour swap, shifts), generated from
-- cqlindex/board/transforms.py. image is NULL where a shift moves the square off the board.
CREATE TABLE square_transforms (
    transform       VARCHAR NOT NULL,
    kind            VARCHAR NOT NULL,  -- dihedral | color | shift
    square          UTINYINT NOT NULL,
    image           UTINYINT
);

-- Constant square sets (files, ranks, colours, diagonals), same module.
CREATE TABLE square_masks (
    name            VARCHAR PRIMARY KEY,
    mask            BIGINT NOT NULL
);

-- Build parameters and versions, one row per key.
CREATE TABLE build_info (
    key             VARCHAR PRIMARY KEY,
    value           VARCHAR
);
