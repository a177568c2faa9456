"""Deals frozen for the search bot's tests: each game's explicit hands (in dealing
order where the deal is dealt card by card, the Shengji kitty last), and the actions
played so far, ``|``-separated. The positions they lead to are described where the
tests build them (``tests/test_search_bot.py``)."""

from __future__ import annotations

GUANDAN_HANDS = (
    "3h 3d 4c 5s 5c 6s 6d 7h 8d 8d 9s 9h 9h Ts Th Th Td Td Tc Jd Qs Qd Qc Kc As Ah Ah",
    "2s 2h 2d 3s 4s 4d 5s 5h 5d 7s 7d 7d 7c 8h 9d 9c 9c Ts Js Jc Qh Kh As Ad SJ BJ BJ",
    "2d 2c 3s 3h 3d 3c 3c 4s 4h 4c 5h 6h 6c 6c 7c 8h 8c 8c 9d Jh Jd Qs Qc Kh Kd Kc Ad",
    "2s 2h 2c 4h 4d 5d 5c 6s 6h 6d 7s 7h 8s 8s 9s Tc Js Jh Jc Qh Qd Ks Ks Kd Ac Ac SJ",
)
GUANDAN_LEADER = 0
GUANDAN_ACTIONS = """
play 4c | play 8h | play Kc | play 2c | pass | pass | pass | play 2s 2h 4h 5d 6s | pass |
pass | play 5h 6c 7c 8h 9d | play 6d 7h 8s 9s Tc | pass | pass | pass | play 4d 5c 6h 7s 8s |
pass | pass | pass | play Js Jh Jc Qh Qd | play 5s 5c Qs Qd Qc | pass | pass |
play Ks Ks Kd Ac Ac | play 6s 6d As Ah Ah | pass | pass | pass | play 3h 3d 9s 9h 9h | pass |
pass | pass | play 8d 8d | pass | pass | pass | play Kc | play 2d | play 3s 3h 3d 3c 3c |
pass | pass | pass | play 4s 4h 4c 6h 6c | pass | pass | pass | play 8c 8c | pass | pass |
pass | play Jh Jd Qs Qc Kh Kd | pass | pass | play 7s 7d 7d 7c | pass | pass |
play Ts Th Th Td Td Tc | pass | pass | pass | play Jd | play SJ | pass | pass | pass |
play Ts Jc Qh Kh Ad | pass | pass | pass | play BJ BJ | pass | pass | pass | play Js |
play Ad | play SJ | pass | pass | pass | play 5h 5d | play 2d 2c | pass | play 2h 9d 9c 9c |
pass
"""

SHENGJI_HANDS = (
    "Td Js 3d 3c 9c 2c 2h 8s Qh 8c 5c Ts",
    "Ad 9h 3h As Tc Ah Qd Jh 5d 7c Th Kc",
    "7d 9s 4s 5s Jd 6h 6c Kd 4h Jc Ac 5h",
    "7h 8h 6s 7s Qc BJ Kh 2d 3s 2s 4c 9d",
    "6d Qs SJ Ks 8d 4d",
)
SHENGJI_ACTIONS = """
declare 2c | bury 3d | bury 4d | bury 6d | bury 8s | bury 8d | bury Qh | play Js | play As |
play 4s | play 3s | play Ah | play 4h | play Kh | play 5c | play Ks | play Tc | play 9s |
play 6s | play Ad | play 7d | play 9d | play Td | play Qd | play Kd | play 4c | play 8c |
play Qs | play 3h | play 5s | play 7s | play Ts | play Kc | play Ac | play 2s | play 7h |
play 3c | play 9h | play 5h | play 9c | play 7c | play 6c | play Qc | play 8h | play 2h |
play Jh | play 6h | play 2c | play 5d | play Jc
"""

SANFU_HANDS = (
    (
        "5c 3d 3d 2s 7h 9h 9d 2s Ah 5h Js 2c 6s Qs Ad 9c 6c SJ Jh 9d 5h Qd 8s 4c 8c Qc 4h 7d "
        "6s 4s Tc 7c 6d SJ 9h 3c Jd 3h 6c 2c Qs"
    ),
    (
        "2h 3s 3h As 5d 7s 4h 9h 7d Jc 4d Td Qh Jc 8s 3c 3s 6h Ts 7c 3s Ts Ts Kd 5d Qd As 9c "
        "Th 3h 2d Ks 6h 9s Td 6h Ac 2d Kh 5s 2h"
    ),
    (
        "As Kc 8h 8d Jd Ah Ah Kc 7h Qc 6c 2c 6d Qh Kh 8h 4s 8c 8d 7c Td Js Ad 7s 4s Jh 8c SJ "
        "BJ 5c Qs 8s 7h Kc 2h Tc Ad 5s BJ Th"
    ),
    (
        "Qd 9s 5s Ks Jh 8h 7s 9d 2s 4d Kd 9s Qh Jc Qc 7d 8d Th Js 3c 5h Kh 5d Ac 5c Jd 6d BJ "
        "3d Kd 2d Tc 9c 6s 4d Ks 4c Ac 4c 4h"
    ),
)
SANFU_TURNED = (24, 138)
SANFU_ACTIONS = """
play 4s 4h 4c 5h 5h 5c | play 9s 9h 9c Th Td Td | play 7s 7h 7h 7c | play 9s 9s 9d 9c |
play Qs Qs Qd Qc | play 2h 2h 2d 2d | play As Ah Ah Ad Ad | pass | pass | play 3s 3s 3s |
play Kc Kc Kc | pass | pass | pass | play 4s 4s 5s 5c 6d 6c | play 6s 6d 7s 7d 8h 8d |
play 3h 3d 3d 3c | pass | pass | play 5s 5h 5d 5c | play 2s 2s 2c 2c | play 6h 6h 6h | pass |
pass | pass | play 3h 3h 3c 4h 4d | play Th Td Tc Js Jh | play Qh Qd Qc Ac Ac |
play 6s 6s 6d 6c 6c | play Ts Ts Ts | pass | pass | pass | play 7s 7d 7c Qh Qd |
play 2h 2c Qs Qh Qc | play Js Jh Jd Jc | pass | pass | pass | play 3d 3c | play SJ SJ | pass |
pass | pass | play 7h 7d 7c 8s 8c | play Jc Jc Ks Kh Kd | play 8s 8h 8h 8d 8d 8c 8c | pass |
pass | pass | play Jd | play BJ | play 9h 9h 9d 9d 9c | pass | pass | play Ks Ks Kh Kd Kd |
pass | pass | pass | play 2s 2d | pass | pass | play BJ BJ | play 4h 4d 4d 4c 4c | pass |
pass | pass | play Th Tc | play Js Jh | play As As | pass | pass | play 5s 5d 5d | pass |
pass
"""
