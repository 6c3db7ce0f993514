-- move capture [qrbn] child : move capture to  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND EXISTS(
    SELECT
      1
    FROM (
      SELECT
        w4srcv.gamenumber,
        w4srcv.positionid,
        LEAD(w4srcv.v0, 1) OVER (PARTITION BY w4srcv.gamenumber ORDER BY w4srcv.positionid NULLS LAST) AS o1_x0,
        w4srcv.v1 AS o0_x1,
        LEAD(w4srcv.v2, 1) OVER (PARTITION BY w4srcv.gamenumber ORDER BY w4srcv.positionid NULLS LAST) AS o1_x2,
        LEAD(w4srcv.v0, 2) OVER (PARTITION BY w4srcv.gamenumber ORDER BY w4srcv.positionid NULLS LAST) AS o2_x3,
        LEAD(w4srcv.v3, 1) OVER (PARTITION BY w4srcv.gamenumber ORDER BY w4srcv.positionid NULLS LAST) AS o1_x4,
        LEAD(w4srcv.v2, 2) OVER (PARTITION BY w4srcv.gamenumber ORDER BY w4srcv.positionid NULLS LAST) AS o2_x5,
        LEAD(w4srcv.positionid, 2) OVER (PARTITION BY w4srcv.gamenumber ORDER BY w4srcv.positionid NULLS LAST) AS o2_positionid
      FROM (
        SELECT
          w4src.gamenumber,
          w4src.positionid,
          NOT (
            w4src.capture_square IS NULL
          ) AS v0,
          (
            w4src.bq | w4src.br | w4src.bb | w4src.bn
          ) AS v1,
          CASE
            WHEN w4src.capture_square = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w4src.capture_square)
          END AS v2,
          CASE
            WHEN COALESCE(w4src.null_move, FALSE)
            THEN CASE WHEN w4src.wtm THEN w4src.bk ELSE w4src.wk END
            WHEN NOT (
              w4src.move_to IS NULL
            )
            THEN (
              CASE
                WHEN w4src.move_to = 63
                THEN CAST(-9223372036854775808 AS BIGINT)
                ELSE SHIFTLEFT(CAST(1 AS BIGINT), w4src.move_to)
              END | CASE
                WHEN NOT (
                  w4src.castle IS NULL
                )
                THEN CASE
                  WHEN w4src.rook_to = 63
                  THEN CAST(-9223372036854775808 AS BIGINT)
                  ELSE SHIFTLEFT(CAST(1 AS BIGINT), w4src.rook_to)
                END
                ELSE 0
              END
            )
            ELSE 0
          END AS v3
        FROM positions AS w4src
        WHERE
          w4src.mainline
      ) AS w4srcv
    ) AS w4
    WHERE
      w4.gamenumber = p.gamenumber
      AND w4.positionid = p.positionid
      AND w4.o1_x0
      AND (
        w4.o0_x1 & w4.o1_x2
      ) <> 0
      AND NOT (
        w4.o2_positionid IS NULL
      )
      AND w4.o2_x3
      AND (
        w4.o1_x4 & w4.o2_x5
      ) <> 0
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- Ka1 kh8  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND (
    p.wk & 1
  ) <> 0
  AND (
    p.bk & CAST(-9223372036854775808 AS BIGINT)
  ) <> 0
ORDER BY
  p.gamenumber,
  p.positionid;

-- [RQ]a-h8 & ~R  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND (
    (
      (
        p.wq | p.wr
      ) & CAST(-72057594037927936 AS BIGINT)
    ) & (
      ~p.wr
    )
  ) <> 0
ORDER BY
  p.gamenumber,
  p.positionid;

-- #[Aa] <= 8 btm  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND BIT_COUNT(
    p.wk | p.wq | p.wr | p.wb | p.wn | p.wp | p.bk | p.bq | p.br | p.bb | p.bn | p.bp
  ) <= 8
  AND NOT p.wtm
ORDER BY
  p.gamenumber,
  p.positionid;

-- power A > power a + 3  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND (
    9 * BIT_COUNT((
      p.wk | p.wq | p.wr | p.wb | p.wn | p.wp
    ) & (
      p.wq | p.bq
    )) + 5 * BIT_COUNT((
      p.wk | p.wq | p.wr | p.wb | p.wn | p.wp
    ) & (
      p.wr | p.br
    )) + 3 * BIT_COUNT((
      p.wk | p.wq | p.wr | p.wb | p.wn | p.wp
    ) & (
      p.wb | p.bb | p.wn | p.bn
    )) + 1 * BIT_COUNT((
      p.wk | p.wq | p.wr | p.wb | p.wn | p.wp
    ) & (
      p.wp | p.bp
    ))
  ) > (
    (
      9 * BIT_COUNT((
        p.bk | p.bq | p.br | p.bb | p.bn | p.bp
      ) & (
        p.wq | p.bq
      )) + 5 * BIT_COUNT((
        p.bk | p.bq | p.br | p.bb | p.bn | p.bp
      ) & (
        p.wr | p.br
      )) + 3 * BIT_COUNT((
        p.bk | p.bq | p.br | p.bb | p.bn | p.bp
      ) & (
        p.wb | p.bb | p.wn | p.bn
      )) + 1 * BIT_COUNT((
        p.bk | p.bq | p.br | p.bb | p.bn | p.bp
      ) & (
        p.wp | p.bp
      ))
    ) + 3
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- flipcolor {Q == 0 q == 1}  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND (
    (
      BIT_COUNT(p.wq) = 0 AND BIT_COUNT(p.bq) = 1
    )
    OR (
      BIT_COUNT(p.bq) = 0 AND BIT_COUNT(p.wq) = 1
    )
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- shiftvertical Pd4  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND p.wp <> 0
  AND (
    (
      p.wp & 134217728
    ) <> 0
    OR (
      p.wp & 8
    ) <> 0
    OR (
      p.wp & 2048
    ) <> 0
    OR (
      p.wp & 524288
    ) <> 0
    OR (
      p.wp & 34359738368
    ) <> 0
    OR (
      p.wp & 8796093022208
    ) <> 0
    OR (
      p.wp & 2251799813685248
    ) <> 0
    OR (
      p.wp & 576460752303423488
    ) <> 0
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- check not mate  [variations, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.is_check AND NOT (
    COALESCE(p.is_mate, FALSE)
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- A attacks k  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline AND (
    p.bk & p.white_attacks
  ) <> 0
ORDER BY
  p.gamenumber,
  p.positionid;

-- _ attackedby a == 0  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND BIT_COUNT(
    (
      ~(
        p.wk | p.wq | p.wr | p.wb | p.wn | p.wp | p.bk | p.bq | p.br | p.bb | p.bn | p.bp
      )
    ) & p.black_attacks
  ) = 0
ORDER BY
  p.gamenumber,
  p.positionid;

-- move from N to f7 capture p  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND EXISTS(
    SELECT
      1
    FROM (
      SELECT
        w2srcv.gamenumber,
        w2srcv.positionid,
        LEAD(w2srcv.v0, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x0,
        w2srcv.v1 AS o0_wn,
        LEAD(w2srcv.v2, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x2,
        LEAD(w2srcv.v3, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_null_move,
        LEAD(w2srcv.v4, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x4,
        LEAD(w2srcv.v5, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x5,
        LEAD(w2srcv.v6, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x6,
        w2srcv.v7 AS o0_bp,
        LEAD(w2srcv.v8, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x8,
        LEAD(w2srcv.positionid, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_positionid
      FROM (
        SELECT
          w2src.gamenumber,
          w2src.positionid,
          NOT (
            w2src.move_from IS NULL
          ) AS v0,
          w2src.wn AS v1,
          CASE
            WHEN w2src.move_from = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w2src.move_from)
          END AS v2,
          w2src.null_move AS v3,
          CASE WHEN w2src.wtm THEN w2src.bk ELSE w2src.wk END AS v4,
          (
            NOT (
              w2src.move_to IS NULL
            )
            AND (
              9007199254740992 & CASE
                WHEN w2src.move_to = 63
                THEN CAST(-9223372036854775808 AS BIGINT)
                ELSE SHIFTLEFT(CAST(1 AS BIGINT), w2src.move_to)
              END
            ) <> 0
          )
          OR (
            w2src.null_move
            AND (
              9007199254740992 & CASE WHEN w2src.wtm THEN w2src.bk ELSE w2src.wk END
            ) <> 0
          ) AS v5,
          NOT (
            w2src.capture_square IS NULL
          ) AS v6,
          w2src.bp AS v7,
          CASE
            WHEN w2src.capture_square = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w2src.capture_square)
          END AS v8
        FROM positions AS w2src
        WHERE
          w2src.mainline
      ) AS w2srcv
    ) AS w2
    WHERE
      w2.gamenumber = p.gamenumber
      AND w2.positionid = p.positionid
      AND NOT (
        w2.o1_positionid IS NULL
      )
      AND (
        (
          w2.o1_x0 AND (
            w2.o0_wn & w2.o1_x2
          ) <> 0
        )
        OR (
          w2.o1_null_move AND (
            w2.o0_wn & w2.o1_x4
          ) <> 0
        )
      )
      AND w2.o1_x5
      AND w2.o1_x6
      AND (
        w2.o0_bp & w2.o1_x8
      ) <> 0
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- move previous capture q  [variations, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  EXISTS(
    SELECT
      1
    FROM positions AS q1
    WHERE
      q1.gamenumber = p.gamenumber
      AND q1.positionid = p.parent
      AND NOT (
        p.capture_square IS NULL
      )
      AND (
        q1.bq & CASE
          WHEN p.capture_square = 63
          THEN CAST(-9223372036854775808 AS BIGINT)
          ELSE SHIFTLEFT(CAST(1 AS BIGINT), p.capture_square)
        END
      ) <> 0
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- move promote [RBN]  [main line, exact]
SELECT
  q1.gamenumber,
  q1.parent AS positionid
FROM positions AS q1
WHERE
  q1.mainline
  AND q1.child_index = 0
  AND NOT q1.parent IS NULL
  AND q1.promotion IN (2, 3, 4)
ORDER BY
  q1.gamenumber,
  q1.parent;

-- e2--e4  [main line, exact]
SELECT
  q1.gamenumber,
  q1.parent AS positionid
FROM positions AS q1
WHERE
  q1.mainline
  AND q1.child_index = 0
  AND NOT q1.parent IS NULL
  AND (
    (
      NOT q1.null_move
      AND (
        (
          NOT (
            q1.move_from IS NULL
          )
          AND (
            4096 & CASE
              WHEN q1.move_from = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), q1.move_from)
            END
          ) <> 0
          AND NOT (
            q1.move_to IS NULL
          )
          AND (
            268435456 & CASE
              WHEN q1.move_to = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), q1.move_to)
            END
          ) <> 0
        )
        OR (
          NOT (
            q1.castle IS NULL
          )
          AND NOT (
            q1.rook_from IS NULL
          )
          AND (
            4096 & CASE
              WHEN q1.rook_from = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), q1.rook_from)
            END
          ) <> 0
          AND NOT (
            q1.rook_to IS NULL
          )
          AND (
            268435456 & CASE
              WHEN q1.rook_to = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), q1.rook_to)
            END
          ) <> 0
        )
      )
    )
    OR (
      q1.null_move
      AND (
        4096 & CASE WHEN q1.wtm THEN q1.bk ELSE q1.wk END
      ) <> 0
      AND (
        268435456 & CASE WHEN q1.wtm THEN q1.bk ELSE q1.wk END
      ) <> 0
    )
  )
ORDER BY
  q1.gamenumber,
  q1.parent;

-- B[x]h7  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND EXISTS(
    SELECT
      1
    FROM (
      SELECT
        w2srcv.gamenumber,
        w2srcv.positionid,
        LEAD(w2srcv.v0, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x0,
        LEAD(w2srcv.v1, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x1,
        w2srcv.v2 AS o0_wb,
        LEAD(w2srcv.v3, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x3,
        LEAD(w2srcv.v4, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x4,
        LEAD(w2srcv.v5, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x5,
        LEAD(w2srcv.positionid, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_positionid
      FROM (
        SELECT
          w2src.gamenumber,
          w2src.positionid,
          NOT w2src.null_move AS v0,
          NOT (
            w2src.move_from IS NULL
          ) AS v1,
          w2src.wb AS v2,
          CASE
            WHEN w2src.move_from = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w2src.move_from)
          END AS v3,
          NOT (
            w2src.capture_square IS NULL
          ) AS v4,
          (
            36028797018963968 & CASE
              WHEN w2src.capture_square = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), w2src.capture_square)
            END
          ) <> 0 AS v5
        FROM positions AS w2src
        WHERE
          w2src.mainline
      ) AS w2srcv
    ) AS w2
    WHERE
      w2.gamenumber = p.gamenumber
      AND w2.positionid = p.positionid
      AND NOT (
        w2.o1_positionid IS NULL
      )
      AND w2.o1_x0
      AND w2.o1_x1
      AND (
        w2.o0_wb & w2.o1_x3
      ) <> 0
      AND w2.o1_x4
      AND w2.o1_x4
      AND w2.o1_x5
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- result 1-0 player black "O'Kelly" year >= 1950  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
JOIN games AS g
  ON g.gamenumber = p.gamenumber
WHERE
  p.mainline
  AND COALESCE(g.result, '') = '1-0'
  AND COALESCE(g.black, '') <> ''
  AND CONTAINS(g.black, 'O\'Kelly')
  AND g.year >= 1950
ORDER BY
  p.gamenumber,
  p.positionid;

-- parent : check  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND EXISTS(
    SELECT
      1
    FROM (
      SELECT
        w2srcv.gamenumber,
        w2srcv.positionid,
        LAG(w2srcv.v0, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS n1_is_check,
        LAG(w2srcv.positionid, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS n1_positionid
      FROM (
        SELECT
          w2src.gamenumber,
          w2src.positionid,
          w2src.is_check AS v0
        FROM positions AS w2src
        WHERE
          w2src.mainline
      ) AS w2srcv
    ) AS w2
    WHERE
      w2.gamenumber = p.gamenumber
      AND w2.positionid = p.positionid
      AND NOT (
        w2.n1_positionid IS NULL
      )
      AND w2.n1_is_check
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- child(1) : mate  [variations, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  EXISTS(
    SELECT
      1
    FROM positions AS q1
    WHERE
      q1.gamenumber = p.gamenumber
      AND q1.parent = p.positionid
      AND q1.child_index = 1
      AND q1.is_mate
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- find mate  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND (
    SELECT
      MAX(q1.positionid)
    FROM positions AS q1
    WHERE
      q1.gamenumber = p.gamenumber AND q1.mainline AND q1.is_mate
  ) >= p.positionid
ORDER BY
  p.gamenumber,
  p.positionid;

-- find mate  [variations, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  EXISTS(
    SELECT
      1
    FROM positions AS q1
    WHERE
      q1.gamenumber = p.gamenumber
      AND q1.positionid BETWEEN p.positionid AND p.last_descendant
      AND q1.is_mate
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- find all check >= 20  [main line, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND (
    SELECT
      COUNT(*)
    FROM positions AS q1
    WHERE
      q1.gamenumber = p.gamenumber AND q1.is_check AND q1.mainline
  ) >= 20
ORDER BY
  p.gamenumber,
  p.positionid;

-- line --> check --> check  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND p.is_check
  AND EXISTS(
    SELECT
      1
    FROM (
      SELECT
        w3srcv.gamenumber,
        w3srcv.positionid,
        w3srcv.v0 AS o0_is_check,
        LEAD(w3srcv.v0, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_is_check,
        LEAD(w3srcv.positionid, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_positionid
      FROM (
        SELECT
          w3src.gamenumber,
          w3src.positionid,
          w3src.is_check AS v0
        FROM positions AS w3src
        WHERE
          w3src.mainline
      ) AS w3srcv
    ) AS w3
    WHERE
      w3.gamenumber = p.gamenumber
      AND w3.positionid = p.positionid
      AND w3.o0_is_check
      AND w3.o1_is_check
      AND NOT (
        w3.o1_positionid IS NULL
      )
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- fen "8/8/8/8/8/8/8/K6k w"  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND p.wk = 1
  AND p.wq = 0
  AND p.wr = 0
  AND p.wb = 0
  AND p.wn = 0
  AND p.wp = 0
  AND p.bk = 128
  AND p.bq = 0
  AND p.br = 0
  AND p.bb = 0
  AND p.bn = 0
  AND p.bp = 0
  AND p.wtm
ORDER BY
  p.gamenumber,
  p.positionid;

-- x = #Q x > 1  [main line, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
ORDER BY
  p.gamenumber,
  p.positionid;

-- if check mate else btm  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND (
    (
      p.is_check AND p.is_mate
    )
    OR (
      NOT (
        COALESCE(p.is_check, FALSE)
      ) AND NOT p.wtm
    )
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- sort "queens" #[Qq]  [main line, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
ORDER BY
  p.gamenumber,
  p.positionid;

-- path -- [x]  [variations, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.children > 0
ORDER BY
  p.gamenumber,
  p.positionid;

-- mate echo (s t) t : check  [variations, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.is_mate
  AND p.gamenumber IN (
    SELECT
      q1.gamenumber
    FROM positions AS q1
    WHERE
      q1.gamenumber IN (
        SELECT
          q2.gamenumber
        FROM positions AS q2
        WHERE
          q2.is_check
      )
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- square x in [Rr] abs(file x - file k) <= 1  [main line, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline AND (
    p.wr | p.br
  ) <> 0
ORDER BY
  p.gamenumber,
  p.positionid;

-- piece x in N {x attacks k x attacks [qr]}  [main line, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND p.wn <> 0
  AND CASE WHEN (
    p.bk & p.white_attacks
  ) <> 0 THEN p.wn ELSE 0 END <> 0
  AND CASE WHEN (
    (
      p.bq | p.br
    ) & p.white_attacks
  ) <> 0 THEN p.wn ELSE 0 END <> 0
ORDER BY
  p.gamenumber,
  p.positionid;

-- distance(lca(currentposition initialposition) currentposition) > 70  [variations, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
ORDER BY
  p.gamenumber,
  p.positionid;

-- pin from B through n to q  [main line, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND (
    (
      (
        (
          p.wk | p.wq | p.wr | p.wb | p.wn | p.wp
        ) & p.bn
      ) & p.black_attacks
    ) | (
      (
        (
          p.bk | p.bq | p.br | p.bb | p.bn | p.bp
        ) & p.bn
      ) & p.white_attacks
    )
  ) <> 0
ORDER BY
  p.gamenumber,
  p.positionid;

-- K--g1 move o-o  [main line, exact]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND EXISTS(
    SELECT
      1
    FROM (
      SELECT
        w3srcv.gamenumber,
        w3srcv.positionid,
        LEAD(w3srcv.v0, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x0,
        LEAD(w3srcv.v1, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x1,
        w3srcv.v2 AS o0_wk,
        LEAD(w3srcv.v3, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x3,
        LEAD(w3srcv.v4, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x4,
        LEAD(w3srcv.v5, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x5,
        LEAD(w3srcv.v6, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x6,
        LEAD(w3srcv.v7, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x7,
        LEAD(w3srcv.v8, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x8,
        LEAD(w3srcv.v9, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_null_move,
        LEAD(w3srcv.v10, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x10,
        LEAD(w3srcv.v11, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x11,
        LEAD(w3srcv.v12, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x12,
        LEAD(w3srcv.positionid, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_positionid
      FROM (
        SELECT
          w3src.gamenumber,
          w3src.positionid,
          NOT w3src.null_move AS v0,
          NOT (
            w3src.move_from IS NULL
          ) AS v1,
          w3src.wk AS v2,
          CASE
            WHEN w3src.move_from = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w3src.move_from)
          END AS v3,
          NOT (
            w3src.move_to IS NULL
          )
          AND (
            64 & CASE
              WHEN w3src.move_to = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), w3src.move_to)
            END
          ) <> 0 AS v4,
          NOT (
            w3src.castle IS NULL
          ) AS v5,
          NOT (
            w3src.rook_from IS NULL
          ) AS v6,
          CASE
            WHEN w3src.rook_from = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w3src.rook_from)
          END AS v7,
          NOT (
            w3src.rook_to IS NULL
          )
          AND (
            64 & CASE
              WHEN w3src.rook_to = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), w3src.rook_to)
            END
          ) <> 0 AS v8,
          w3src.null_move AS v9,
          CASE WHEN w3src.wtm THEN w3src.bk ELSE w3src.wk END AS v10,
          (
            64 & CASE WHEN w3src.wtm THEN w3src.bk ELSE w3src.wk END
          ) <> 0 AS v11,
          COALESCE(w3src.castle = 1, FALSE) AS v12
        FROM positions AS w3src
        WHERE
          w3src.mainline
      ) AS w3srcv
    ) AS w3
    WHERE
      w3.gamenumber = p.gamenumber
      AND w3.positionid = p.positionid
      AND NOT (
        w3.o1_positionid IS NULL
      )
      AND (
        (
          w3.o1_x0
          AND (
            (
              w3.o1_x1 AND (
                w3.o0_wk & w3.o1_x3
              ) <> 0 AND w3.o1_x4
            )
            OR (
              w3.o1_x5 AND w3.o1_x6 AND (
                w3.o0_wk & w3.o1_x7
              ) <> 0 AND w3.o1_x8
            )
          )
        )
        OR (
          w3.o1_null_move AND (
            w3.o0_wk & w3.o1_x10
          ) <> 0 AND w3.o1_x11
        )
      )
      AND w3.o1_x12
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- relation (tomove match) (mismatch 0)  [main line, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND EXISTS(
    SELECT
      1
    FROM positions AS q1
    WHERE
      q1.gamenumber = p.gamenumber
      AND q1.positionid <> p.positionid
      AND q1.mainline
      AND q1.wtm = p.wtm
      AND q1.wk = p.wk
      AND q1.wq = p.wq
      AND q1.wr = p.wr
      AND q1.wb = p.wb
      AND q1.wn = p.wn
      AND q1.wp = p.wp
      AND q1.bk = p.bk
      AND q1.bq = p.bq
      AND q1.br = p.br
      AND q1.bb = p.bb
      AND q1.bn = p.bn
      AND q1.bp = p.bp
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- relation (mismatch 1 2)  [variations, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  EXISTS(
    SELECT
      1
    FROM positions AS q1
    WHERE
      q1.gamenumber = p.gamenumber
      AND q1.positionid <> p.positionid
      AND (
        ABS(BIT_COUNT(q1.wk) - BIT_COUNT(p.wk)) + ABS(BIT_COUNT(q1.wq) - BIT_COUNT(p.wq)) + ABS(BIT_COUNT(q1.wr) - BIT_COUNT(p.wr)) + ABS(BIT_COUNT(q1.wb) - BIT_COUNT(p.wb)) + ABS(BIT_COUNT(q1.wn) - BIT_COUNT(p.wn)) + ABS(BIT_COUNT(q1.wp) - BIT_COUNT(p.wp)) + ABS(BIT_COUNT(q1.bk) - BIT_COUNT(p.bk)) + ABS(BIT_COUNT(q1.bq) - BIT_COUNT(p.bq)) + ABS(BIT_COUNT(q1.br) - BIT_COUNT(p.br)) + ABS(BIT_COUNT(q1.bb) - BIT_COUNT(p.bb)) + ABS(BIT_COUNT(q1.bn) - BIT_COUNT(p.bn)) + ABS(BIT_COUNT(q1.bp) - BIT_COUNT(p.bp))
      ) <= 4
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- K on darksquares relation K on lightsquares (tomove match) echoshift (mismatch 0)  [variations, candidates]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  (
    p.wk & CAST(-6172840429334713771 AS BIGINT)
  ) <> 0
  AND EXISTS(
    SELECT
      1
    FROM positions AS q1
    WHERE
      q1.gamenumber = p.gamenumber
      AND q1.positionid <> p.positionid
      AND q1.wtm = p.wtm
      AND BIT_COUNT(q1.wk) = BIT_COUNT(p.wk)
      AND BIT_COUNT(q1.wq) = BIT_COUNT(p.wq)
      AND BIT_COUNT(q1.wr) = BIT_COUNT(p.wr)
      AND BIT_COUNT(q1.wb) = BIT_COUNT(p.wb)
      AND BIT_COUNT(q1.wn) = BIT_COUNT(p.wn)
      AND BIT_COUNT(q1.wp) = BIT_COUNT(p.wp)
      AND BIT_COUNT(q1.bk) = BIT_COUNT(p.bk)
      AND BIT_COUNT(q1.bq) = BIT_COUNT(p.bq)
      AND BIT_COUNT(q1.br) = BIT_COUNT(p.br)
      AND BIT_COUNT(q1.bb) = BIT_COUNT(p.bb)
      AND BIT_COUNT(q1.bn) = BIT_COUNT(p.bn)
      AND BIT_COUNT(q1.bp) = BIT_COUNT(p.bp)
      AND CASE
        WHEN BIT_COUNT(q1.wk) = 1 AND BIT_COUNT(q1.bk) = 1
        THEN CASE WHEN q1.bk < 0 THEN 63 ELSE BIT_COUNT(q1.bk - 1) END - CASE WHEN q1.wk < 0 THEN 63 ELSE BIT_COUNT(q1.wk - 1) END
      END IS NOT DISTINCT FROM CASE
        WHEN BIT_COUNT(p.wk) = 1 AND BIT_COUNT(p.bk) = 1
        THEN CASE WHEN p.bk < 0 THEN 63 ELSE BIT_COUNT(p.bk - 1) END - CASE WHEN p.wk < 0 THEN 63 ELSE BIT_COUNT(p.wk - 1) END
      END
      AND (
        q1.wk & 6172840429334713770
      ) <> 0
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- K--g1 move o-o  [main line, exact, chess960]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND EXISTS(
    SELECT
      1
    FROM (
      SELECT
        w3srcv.gamenumber,
        w3srcv.positionid,
        LEAD(w3srcv.v0, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x0,
        LEAD(w3srcv.v1, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x1,
        w3srcv.v2 AS o0_wk,
        LEAD(w3srcv.v3, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x3,
        LEAD(w3srcv.v4, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x4,
        LEAD(w3srcv.v5, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x5,
        LEAD(w3srcv.v6, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x6,
        LEAD(w3srcv.v7, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x7,
        LEAD(w3srcv.v8, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x8,
        LEAD(w3srcv.v9, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_null_move,
        LEAD(w3srcv.v10, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x10,
        LEAD(w3srcv.v11, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x11,
        LEAD(w3srcv.v12, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_x12,
        LEAD(w3srcv.positionid, 1) OVER (PARTITION BY w3srcv.gamenumber ORDER BY w3srcv.positionid NULLS LAST) AS o1_positionid
      FROM (
        SELECT
          w3src.gamenumber,
          w3src.positionid,
          NOT w3src.null_move AS v0,
          NOT (
            w3src.move_from IS NULL
          ) AS v1,
          w3src.wk AS v2,
          CASE
            WHEN w3src.move_from = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w3src.move_from)
          END AS v3,
          NOT (
            w3src.move_to IS NULL
          )
          AND (
            64 & CASE
              WHEN w3src.move_to = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), w3src.move_to)
            END
          ) <> 0 AS v4,
          NOT (
            w3src.castle IS NULL
          ) AS v5,
          NOT (
            w3src.rook_from IS NULL
          ) AS v6,
          CASE
            WHEN w3src.rook_from = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w3src.rook_from)
          END AS v7,
          NOT (
            w3src.rook_to IS NULL
          )
          AND (
            64 & CASE
              WHEN w3src.rook_to = 63
              THEN CAST(-9223372036854775808 AS BIGINT)
              ELSE SHIFTLEFT(CAST(1 AS BIGINT), w3src.rook_to)
            END
          ) <> 0 AS v8,
          w3src.null_move AS v9,
          CASE WHEN w3src.wtm THEN w3src.bk ELSE w3src.wk END AS v10,
          (
            64 & CASE WHEN w3src.wtm THEN w3src.bk ELSE w3src.wk END
          ) <> 0 AS v11,
          COALESCE(w3src.castle = 1, FALSE) AS v12
        FROM positions AS w3src
        WHERE
          w3src.mainline
      ) AS w3srcv
    ) AS w3
    WHERE
      w3.gamenumber = p.gamenumber
      AND w3.positionid = p.positionid
      AND NOT (
        w3.o1_positionid IS NULL
      )
      AND (
        (
          w3.o1_x0
          AND (
            (
              w3.o1_x1 AND (
                w3.o0_wk & w3.o1_x3
              ) <> 0 AND w3.o1_x4
            )
            OR (
              w3.o1_x5 AND w3.o1_x6 AND (
                w3.o0_wk & w3.o1_x7
              ) <> 0 AND w3.o1_x8
            )
          )
        )
        OR (
          w3.o1_null_move AND (
            w3.o0_wk & w3.o1_x10
          ) <> 0 AND w3.o1_x11
        )
      )
      AND w3.o1_x12
  )
ORDER BY
  p.gamenumber,
  p.positionid;

-- R--  [main line, exact, chess960]
SELECT
  p.gamenumber,
  p.positionid
FROM positions AS p
WHERE
  p.mainline
  AND EXISTS(
    SELECT
      1
    FROM (
      SELECT
        w2srcv.gamenumber,
        w2srcv.positionid,
        LEAD(w2srcv.v0, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x0,
        LEAD(w2srcv.v1, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x1,
        w2srcv.v2 AS o0_wr,
        LEAD(w2srcv.v3, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x3,
        LEAD(w2srcv.v4, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x4,
        LEAD(w2srcv.v5, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x5,
        LEAD(w2srcv.v6, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x6,
        LEAD(w2srcv.v7, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_null_move,
        LEAD(w2srcv.v8, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_x8,
        LEAD(w2srcv.positionid, 1) OVER (PARTITION BY w2srcv.gamenumber ORDER BY w2srcv.positionid NULLS LAST) AS o1_positionid
      FROM (
        SELECT
          w2src.gamenumber,
          w2src.positionid,
          NOT w2src.null_move AS v0,
          NOT (
            w2src.move_from IS NULL
          ) AS v1,
          w2src.wr AS v2,
          CASE
            WHEN w2src.move_from = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w2src.move_from)
          END AS v3,
          NOT (
            w2src.castle IS NULL
          ) AS v4,
          NOT (
            w2src.rook_from IS NULL
          ) AS v5,
          CASE
            WHEN w2src.rook_from = 63
            THEN CAST(-9223372036854775808 AS BIGINT)
            ELSE SHIFTLEFT(CAST(1 AS BIGINT), w2src.rook_from)
          END AS v6,
          w2src.null_move AS v7,
          CASE WHEN w2src.wtm THEN w2src.bk ELSE w2src.wk END AS v8
        FROM positions AS w2src
        WHERE
          w2src.mainline
      ) AS w2srcv
    ) AS w2
    WHERE
      w2.gamenumber = p.gamenumber
      AND w2.positionid = p.positionid
      AND NOT (
        w2.o1_positionid IS NULL
      )
      AND (
        (
          w2.o1_x0
          AND (
            (
              w2.o1_x1 AND (
                w2.o0_wr & w2.o1_x3
              ) <> 0
            )
            OR (
              w2.o1_x4 AND w2.o1_x5 AND (
                w2.o0_wr & w2.o1_x6
              ) <> 0
            )
          )
        )
        OR (
          w2.o1_null_move AND (
            w2.o0_wr & w2.o1_x8
          ) <> 0
        )
      )
  )
ORDER BY
  p.gamenumber,
  p.positionid;
