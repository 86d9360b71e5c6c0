#!/usr/bin/env python3
"""Writes referee-own.jsonl: hand-checked cases in the public case format.

Every expectation here was worked out by hand from docs/RULES.md, not taken from the program.
Run: python3 tests/cases/make_own_cases.py > tests/cases/referee-own.jsonl
"""
import json

PT_EMPTY = {"cincinnati": False, "wild16": 0, "traditional": [], "rand": [],
            "berkeley": None, "berkeley-any": None, "russian": None}
ALL = list(PT_EMPTY)


def new(rules, to_move="white", checks=(), pt="empty", end=None):
    return moved(rules, to_move, None, checks, pt, end, answer="new")


def moved(rules, to_move, capture=None, checks=(), pt="empty", end=None, promotion=False, answer="moved"):
    if pt == "empty":
        pt = PT_EMPTY[rules]
    man = None
    if capture:
        sq, kind = capture
        if rules in ("cincinnati", "wild16", "traditional", "rand"):
            man = kind
        capture = {"square": sq, "man": man}
    return {"answer": answer, "heard_by": "both", "to_move": to_move, "capture": capture,
            "checks": list(checks), "pawn_tries": pt,
            "promotion": promotion if rules == "rand" else None,
            "end": end}


def ref(rules, kind, to_move):
    heard = "mover" if rules == "wild16" else "both"
    if rules in ("wild16", "russian"):
        kind = "illegal"
    return {"answer": kind, "heard_by": heard, "to_move": to_move}


def T(m):
    return {"cmd": "try", "move": m}


def ASK(w):
    return {"cmd": "ask", "what": w}


cases = []


def case(cid, title, rules, fen, new_expect, steps, options=None):
    cases.append({"id": cid, "title": title, "rules": rules, "options": options or {}, "fen": fen,
                  "commands": [c for c, _ in steps], "new_expect": new_expect,
                  "expect": [e for _, e in steps]})


# 1. Ignoring a rank check: illegal in cincinnati, impossible with strict and in rand.
FEN = "4k3/8/8/8/8/2N5/8/r3K2R w K - 0 1"
for rules, opts, kind in [("cincinnati", {}, "illegal"), ("cincinnati", {"strict": True}, "impossible"),
                          ("rand", {}, "impossible"), ("traditional", {}, "illegal"),
                          ("berkeley", {}, "illegal"), ("wild16", {}, "illegal")]:
    steps = [(T("h1h5"), ref(rules, kind, "white")),
             (T("e1g1"), ref(rules, kind, "white")),
             (T("c3d5"), ref(rules, kind, "white")),
             (T("c3b1"), moved(rules, "black"))]
    case("O01", "Ignoring an announced rank check (rook off the line, castling in check, knight off the line)",
         rules, FEN, new(rules, checks=["rank"]), steps, opts)

# 2. Double check: only king moves are compatible; a king move into check is merely illegal.
FEN = "k3r3/8/8/8/8/3n4/8/1B2K3 w - - 0 1"
for rules, kind in [("rand", "impossible"), ("cincinnati", "illegal")]:
    case("O02", "Double check (file + knight): bishop takes a checker is ignoring; king into the file is illegal",
         rules, FEN, new(rules, checks=["file", "knight"]),
         [(T("b1d3"), ref(rules, kind, "white")),
          (T("e1e2"), ref(rules, "illegal", "white")),
          (T("e1f1"), moved(rules, "black"))])

# 3. Knight check: compatible only onto the knight squares around the king.
FEN = "k7/8/8/8/8/5n1R/8/4K3 w - - 0 1"
case("O03", "Knight check: rook moves off the knight squares are ignoring (RAND), capture on f3 stands",
     "rand", FEN, new("rand", checks=["knight"]),
     [(T("h3h1"), ref("rand", "impossible", "white")),
      (T("h3g3"), ref("rand", "impossible", "white")),
      (T("h3f3"), moved("rand", "black", capture=("f3", "piece")))])

# 4. En passant capture of the checking pawn.
FEN = "k7/2p5/8/1P6/3K4/8/8/8 b - - 0 1"
for rules, pt in [("rand", ["c6"]), ("cincinnati", True), ("wild16", 1), ("berkeley", None)]:
    case("O04", "A double step gives check on the short diagonal; en passant removes the checker (capture on c5)",
         rules, FEN, new(rules, to_move="black"),
         [(T("c7c5"), moved(rules, "white", checks=["short"], pt=pt)),
          (T("b5c6"), moved(rules, "black", capture=("c5", "pawn")))])

# 5. Pawn-capture attempts after 1.e4 d5.
for rules, pt, f2e3, e4f5 in [("cincinnati", True, "illegal", "illegal"),
                              ("traditional", ["d5"], "impossible", "impossible"),
                              ("rand", ["d5"], "impossible", "impossible"),
                              ("wild16", 1, "illegal", "illegal"),
                              ("berkeley", None, "illegal", "illegal")]:
    case("O05", "Pawn-capture attempts onto unannounced squares, then the announced capture",
         rules, None, new(rules),
         [(T("e2e4"), moved(rules, "black")),
          (T("d7d5"), moved(rules, "white", pt=pt)),
          (T("f2e3"), ref(rules, f2e3, "white")),
          (T("e4f5"), ref(rules, e4f5, "white")),
          (T("e4d5"), moved(rules, "black", capture=("d5", "pawn")))])

# 6. Pawn-capture attempt with none announced, at the start.
for rules, kind in [("cincinnati", "impossible"), ("traditional", "impossible"), ("rand", "impossible"),
                    ("berkeley", "illegal"), ("berkeley-any", "illegal"), ("wild16", "illegal"),
                    ("russian", "illegal")]:
    case("O06", "Pawn-capture attempt at the start, when no pawn capture was announced",
         rules, None, new(rules),
         [(T("e2d3"), ref(rules, kind, "white")), (T("e2e3"), moved(rules, "black"))])

# 7. A promotion letter on a move that is not a promotion.
for rules in ALL:
    case("O07", "g1f3q is not possible on the own board; g1f3 stands",
         rules, None, new(rules),
         [(T("g1f3q"), ref(rules, "impossible", "white")), (T("g1f3"), moved(rules, "black"))])

# 8. e7e8 and e7e8q are one try; e7e8n is another.
FEN = "4n2k/4P3/8/8/8/8/8/K7 w - - 0 1"
for rules, rep in [("cincinnati", "impossible"), ("rand", "illegal"), ("traditional", "illegal"),
                   ("berkeley", "impossible"), ("berkeley-any", "impossible"), ("wild16", "illegal")]:
    case("O08", "Promotion blocked by an unseen knight: e7e8 then e7e8q is a repeat, e7e8n is not",
         rules, FEN, new(rules),
         [(T("e7e8"), ref(rules, "illegal", "white")),
          (T("e7e8q"), ref(rules, rep, "white")),
          (T("e7e8n"), ref(rules, "illegal", "white")),
          (T("a1b1"), moved(rules, "black"))])

# 9. RAND rebuffs: both kinds and repeats count, questions never do.
case("O09", "RAND rebuff count: Hell no, No and a repeat count; a refused question does not",
     "rand", "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1", new("rand"),
     [(T("e1e2"), ref("rand", "impossible", "white")),
      (T("e2e4"), ref("rand", "illegal", "white")),
      (T("e2e4"), ref("rand", "illegal", "white")),
      (ASK("any"), ref("rand", "impossible", "white")),
      (T("e1d2"), moved("rand", "black")),
      ({"cmd": "ask", "what": "rebuffs"}, {"answer": "count", "heard_by": "both", "to_move": "black", "count": 3}),
      (T("e3c2"), moved("rand", "white")),
      ({"cmd": "ask", "what": "rebuffs"}, {"answer": "count", "heard_by": "both", "to_move": "white", "count": 0})])

# 10. Berkeley + Any?: after "no", pawn-capture attempts are nonsense; a second ask is refused.
case("O10", "Any? answered no: a pawn-capture attempt is Nonsense; asking again is refused",
     "berkeley-any", None, new("berkeley-any"),
     [(ASK("any"), {"answer": "no", "heard_by": "both", "to_move": "white"}),
      (T("e2d3"), ref("berkeley-any", "impossible", "white")),
      (ASK("any"), ref("berkeley-any", "impossible", "white")),
      (T("e2e4"), moved("berkeley-any", "black")),
      (ASK("any"), {"answer": "no", "heard_by": "both", "to_move": "black"})])

# 11. Questions that a rule set does not have.
for rules, kind in [("berkeley", "impossible"), ("cincinnati", "impossible"), ("wild16", "illegal"),
                    ("traditional", "impossible")]:
    case("O11", "Any? and rebuffs where the rule set has neither",
         rules, None, new(rules),
         [(ASK("any"), ref(rules, kind, "white")), (ASK("rebuffs"), ref(rules, kind, "white")),
          (T("d2d4"), moved(rules, "black"))])

# 12. Russian Any? answered no: a pawn-capture attempt is an ordinary illegal try.
case("O12", "Russian: Any? no, then a pawn-capture attempt is an ordinary illegal try",
     "russian", None, new("russian"),
     [(ASK("any"), {"answer": "no", "heard_by": "both", "to_move": "white"}),
      (T("e2d3"), ref("russian", "illegal", "white")),
      (T("e2e4"), moved("russian", "black"))])

# 13. Fifty moves: a FEN clock of 99 reaches 100 after one quiet move; Berkeley has no such draw.
FEN = "k7/8/8/8/8/8/8/K6R w - - 99 80"
for rules in ALL:
    if rules == "russian":
        continue
    end = None if rules.startswith("berkeley") else {"result": "1/2-1/2", "reason": "fifty-moves"}
    case("O13", "The half-move clock reaches 100 after a quiet move",
         rules, FEN, new(rules), [(T("h1h2"), moved(rules, "black", end=end))])

# 14. Stalemate after a move; RAND ladder: the stalemated side loses.
FEN = "k7/8/2K5/8/8/8/8/1Q6 w - - 0 1"
for rules, opts, result in [("cincinnati", {}, "1/2-1/2"), ("rand", {"ladder": True}, "1-0"),
                            ("rand", {"ladder": False}, "1/2-1/2"), ("berkeley", {}, "1/2-1/2")]:
    case("O14", "Qb6 stalemates the black king on a8",
         rules, FEN, new(rules),
         [(T("b1b6"), moved(rules, "black", end={"result": result, "reason": "stalemate"}))], opts)

# 15. Dead material: FIDE-style versus the Berkeley rule.
for fen, fide, berk, title in [
        ("k7/8/8/8/8/8/8/KB3b2 w - - 0 1", True, True, "K+B v K+B, bishops on one colour"),
        ("k7/8/8/8/8/8/8/KB2b3 w - - 0 1", False, True, "K+B v K+B, bishops on opposite colours"),
        ("k7/8/8/8/8/8/8/KB1B4 w - - 0 1", True, False, "K+B+B v K, bishops on one colour"),
        ("k7/8/8/8/8/8/8/KNN5 w - - 0 1", False, False, "K+N+N v K"),
        ("k7/8/8/8/8/8/8/KN6 w - - 0 1", True, True, "K+N v K"),
        ("kn6/8/8/8/8/8/8/KB6 w - - 0 1", False, True, "K+B v K+N")]:
    for rules in ["cincinnati", "berkeley", "wild16"]:
        dead = berk if rules == "berkeley" else fide
        end = {"result": "1/2-1/2", "reason": "insufficient-material"} if dead else None
        steps = [] if dead else [(T("a1a2"), moved(rules, "black"))]
        case("O15", "Dead material at the start: " + title, rules, fen, new(rules, end=end), steps)

# 16. Castling: through an own man, without rights, through an attacked square, queen side.
for rules in ["cincinnati", "rand", "berkeley"]:
    case("O16", "Castling through own men is impossible", rules, None, new(rules),
         [(T("e1g1"), ref(rules, "impossible", "white")), (T("e1c1"), ref(rules, "impossible", "white")),
          (T("e2e4"), moved(rules, "black"))])
    case("O16", "Castling without the right is impossible",
         rules, "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", new(rules),
         [(T("e1g1"), ref(rules, "impossible", "white")), (T("e1f1"), moved(rules, "black")),
          (T("e8c8"), ref(rules, "impossible", "black"))])
    case("O16", "Castling across an attacked square is illegal; queen side stands",
         rules, "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1", new(rules),
         [(T("e1g1"), ref(rules, "illegal", "white")), (T("e1c1"), moved(rules, "black"))])

# 17. Double step: through an own man is impossible, through an unseen man is illegal.
for rules in ["cincinnati", "traditional", "berkeley-any"]:
    case("O17", "e2e4 blocked by an unseen knight on e3 is No; through an own bishop on e3 is Nonsense",
         rules, "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1", new(rules),
         [(T("e2e4"), ref(rules, "illegal", "white")), (T("e2e3"), ref(rules, "illegal", "white")),
          (T("e1f2"), moved(rules, "black"))])
    case("O17", "A pawn push onto an own man is Nonsense",
         rules, "4k3/8/8/8/8/4B3/4P3/4K3 w - - 0 1", new(rules),
         [(T("e2e4"), ref(rules, "impossible", "white")), (T("e2e3"), ref(rules, "impossible", "white")),
          (T("e1d1"), moved(rules, "black"))])

# 18. Check kinds by geometry (a black pawn on a7 keeps the material alive).
GEOM = [
    ("k7/p7/8/8/8/8/2b5/7K b - - 0 1", "c2e4", ["long"]),     # h1: the a1-h8 diagonal is the long one
    ("k7/p7/8/8/8/8/7b/4K3 b - - 0 1", "h2g3", ["short"]),    # g3-f2-e1: e1-h4 (4 squares) vs a5-e1 (5)
    ("k7/p7/8/8/8/q7/8/4K3 b - - 0 1", "a3b4", ["long"]),    # b4-c3-d2-e1: the a5-e1 diagonal (5): long
    ("k7/p7/8/8/8/8/8/4K2n b - - 0 1", "h1g3", []),
    ("k7/p7/8/8/8/8/8/4K1n1 b - - 0 1", "g1f3", ["knight"]),
    ("k7/p7/8/8/8/8/8/4K1r1 w - - 0 1", None, ["rank"]),
    ("k3r3/8/8/8/8/8/4n3/4K3 b - - 0 1", "e2c3", ["file"]),   # discovered file check
    ("k3r3/8/8/8/8/8/4n3/4K3 b - - 0 1", "e2g1", ["file"]),   # the knight on g1 does not check e1 itself
    ("k3r3/8/8/4n3/8/8/8/4K3 b - - 0 1", "e5d3", ["file", "knight"]),
    ("k7/8/8/8/8/8/8/r1n1K3 b - - 0 1", "c1d3", ["rank", "knight"]),
    ("k7/p7/8/8/8/8/5p2/4K3 w - - 0 1", None, ["short"]),     # a pawn's check is a diagonal one
    ("k7/p7/8/8/8/8/3p4/4K3 w - - 0 1", None, ["long"]),
]
for fen, move, checks in GEOM:
    for rules in ["cincinnati", "berkeley"]:
        if move is None:
            case("O18", "Check kinds at the start: " + fen, rules, fen, new(rules, checks=checks),
                 [(T("e1e2"), moved(rules, "black"))] if checks == ["rank"] else [])
        else:
            case("O18", "Check kinds: " + move + " in " + fen, rules, fen, new(rules, to_move="black"),
                 [(T(move), moved(rules, "white", checks=checks))])

# 19. Wild 16 refusals are heard by the mover only, of every kind.
case("O19", "Wild 16: nonsense and illegal tries are both 'Illegal move', to the mover only",
     "wild16", "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1", new("wild16"),
     [(T("e1e2"), ref("wild16", "illegal", "white")), (T("e2e4"), ref("wild16", "illegal", "white")),
      (T("e2e4"), ref("wild16", "illegal", "white")), (T("e2f3"), ref("wild16", "illegal", "white")),
      (T("e1f2"), moved("wild16", "black"))])

# 20. RAND source squares: the pawns' squares are announced; an unannounced pawn is Hell no.
case("O20", "RAND with rand-try-squares=source: announced pawn squares, another pawn's try is Hell no",
     "rand", None, new("rand"),
     [(T("e2e4"), moved("rand", "black")), (T("d7d5"), moved("rand", "white", pt=["e4"])),
      (T("c2d3"), ref("rand", "impossible", "white")),
      (T("e4f5"), ref("rand", "illegal", "white")),
      (T("e4d5"), moved("rand", "black", capture=("d5", "pawn")))], {"rand-try-squares": "source"})

# 21. Promotion by capture with a chosen piece, RAND announces it; others are silent.
FEN = "1r2k3/P6p/8/8/8/8/8/4K3 w - - 0 1"
for rules, pt in [("rand", ["b8"]), ("cincinnati", True), ("wild16", 1), ("traditional", ["b8"])]:
    case("O21", "a7xb8=N: capture on b8, no check, promotion only announced by RAND",
         rules, FEN, new(rules, pt=pt),
         [(T("a7b8n"), moved(rules, "black", capture=("b8", "piece"), promotion=True))])

# 22. Threefold repetition counts the start and needs the same side to move.
FEN = "k7/8/8/8/8/8/8/K6R w - - 0 1"
steps = []
plies = ["h1h2", "a8b8", "h2h1", "b8a8", "h1h2", "a8b8", "h2h1", "b8a8"]
for i, m in enumerate(plies):
    to_move = "black" if i % 2 == 0 else "white"
    end = {"result": "1/2-1/2", "reason": "repetition"} if i == len(plies) - 1 else None
    steps.append((T(m), moved("cincinnati", to_move, end=end)))
case("O22", "Third occurrence of the start position (rook and king shuffle) is a draw",
     "cincinnati", FEN, new("cincinnati"), steps)

# 23. Ignoring a check in Berkeley + Any?: an ordinary illegal try.
case("O23", "Berkeley + Any?: a rook move off the announced rank is No",
     "berkeley-any", "4k3/8/8/8/8/2N5/8/r3K2R w K - 0 1", new("berkeley-any", checks=["rank"]),
     [(T("h1h5"), ref("berkeley-any", "illegal", "white")),
      (T("h1h5"), ref("berkeley-any", "impossible", "white")),
      (T("c3b1"), moved("berkeley-any", "black"))])

# 24. Russian: a pawn double-steps only from its own 2nd rank; every refusal is the one kind.
BATTLE = "rnbqkbnr/pp1p1pp1/2p1p2p/8/8/1PNP1P2/P1P1PNPP/RBBQK2R w - - 0 1"
case("O24", "Russian: b3b5 (double step from the 3rd rank) and its repeat are refused; a2a4 stands",
     "russian", BATTLE, new("russian"),
     [(T("b3b5"), ref("russian", "illegal", "white")),
      (T("b3b5"), ref("russian", "illegal", "white")),
      (T("e1g1"), ref("russian", "illegal", "white")),
      (T("a2a4"), moved("russian", "black")),
      (T("h6h4"), ref("russian", "illegal", "black")),
      (T("a7a5"), moved("russian", "white"))])

for c in cases:
    print(json.dumps(c, ensure_ascii=False))
