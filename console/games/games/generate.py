#!/usr/bin/env python3
"""Authoring tool for the end-to-end game definitions in this folder (not run by the tests).

It plays one complete game per rule set with python-chess (`pip install chess`): White is a
greedy one-ply player that pushes for promotions and mates only after move 30, Black a
seeded random player that likes captures, castling and en passant. A seed is kept only if
its game has castling (not russian), en passant, two promotions (the first one to a chosen
piece), captures, checks, ends in checkmate and lasts 60+ plies without a draw on the way.
Refused tries (illegal, impossible, pawn-capture attempts, bad castling) and the rule set's
questions are then added before some legal moves. The Rust side (tests/src/games.rs)
validates every file against the real referee and computes the expected answers; this
script only proposes.

    python3 console/games/games/generate.py            # rewrites console/games/games/*.json
"""

import json
import random
import sys
from pathlib import Path

import chess

HERE = Path(__file__).resolve().parent

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}

GAMES = [
    # (rules, options, fen, seed base)
    ("cincinnati", {}, None, 1000),
    ("wild16", {}, None, 2000),
    ("traditional", {}, None, 3000),
    ("rand", {}, None, 4000),
    ("berkeley", {}, None, 5000),
    ("berkeley-any", {}, None, 6000),
    # A chess-battle set-up: pawns on ranks 2/3 (6/7), pieces in the first three ranks.
    ("russian", {}, "r1bqk2r/ppp1bppp/2nppn2/8/8/2NPPN2/PPP1BPPP/R1BQK2R w - - 0 1", 7000),
]


def material(board, color):
    return sum(VALUES[p.piece_type] for p in board.piece_map().values() if p.color == color)


def white_score(board, move, ply):
    b = board.copy()
    b.push(move)
    if b.is_checkmate():
        return 10_000 if ply >= 60 else -10_000
    if b.is_stalemate() or b.is_insufficient_material() or b.can_claim_threefold_repetition():
        return -20_000
    score = 10 * (material(b, chess.WHITE) - material(b, chess.BLACK))
    piece = board.piece_at(move.from_square)
    if piece and piece.piece_type == chess.PAWN:
        score += chess.square_rank(move.to_square)  # run for promotion
    if b.is_check():
        score += 2
    # Do not hang the piece just moved to a cheaper attacker.
    if b.is_attacked_by(chess.BLACK, move.to_square) and not b.is_attacked_by(chess.WHITE, move.to_square):
        score -= 10 * VALUES[b.piece_at(move.to_square).piece_type]
    if board.is_castling(move):
        score += 6
    if board.is_en_passant(move):
        score += 30
    return score


def black_move(board, rng):
    moves = list(board.legal_moves)
    for m in moves:
        if board.is_en_passant(m) or board.is_castling(m):
            return m
    captures = [m for m in moves if board.is_capture(m)]
    if captures and rng.random() < 0.5:
        return rng.choice(captures)
    # Black pawns double-step next to White pawns now and then (en passant chances).
    pushes = [m for m in moves if board.piece_at(m.from_square).piece_type == chess.PAWN
              and abs(m.to_square - m.from_square) == 16]
    if pushes and rng.random() < 0.3:
        return rng.choice(pushes)
    return rng.choice(moves)


def play(fen, rng):
    board = chess.Board(fen) if fen else chess.Board()
    promotions = 0
    while not board.is_game_over() and board.ply() < 140:
        if board.turn == chess.WHITE:
            moves = list(board.legal_moves)
            rng.shuffle(moves)
            move = max(moves, key=lambda m: white_score(board, m, len(board.move_stack)))
            if move.promotion:
                promotions += 1
                if promotions == 1:
                    # The first promotion picks a knight or a rook when that is just as good.
                    for role in (chess.KNIGHT, chess.ROOK):
                        alt = chess.Move(move.from_square, move.to_square, role)
                        b = board.copy()
                        b.push(alt)
                        if not b.is_stalemate() and not b.is_checkmate():
                            move = alt
                            break
        else:
            move = black_move(board, rng)
        board.push(move)
        if board.is_repetition(3) or board.halfmove_clock >= 100:
            return None
    return board


def features(board, start):
    b = start.copy()
    f = dict(castle=0, ep=0, promo=0, under=0, capture=0, check=0)
    for m in board.move_stack:
        if b.is_castling(m):
            f["castle"] += 1
        if b.is_en_passant(m):
            f["ep"] += 1
        if m.promotion:
            f["promo"] += 1
            if m.promotion != chess.QUEEN:
                f["under"] += 1
        if b.is_capture(m):
            f["capture"] += 1
        b.push(m)
        if b.is_check():
            f["check"] += 1
    return f


def own_board(board):
    """The mover's own board: enemy men removed (the enemy king too), no en passant."""
    b = board.copy(stack=False)
    for sq, p in list(b.piece_map().items()):
        if p.color != board.turn:
            b.remove_piece_at(sq)
    b.ep_square = None
    return b


def refused_candidates(board, rng, rules):
    """Tries that the referee will refuse, physically makeable on the mover's board."""
    own = own_board(board)
    legal = set(board.legal_moves)
    mine = {sq for sq, p in board.piece_map().items() if p.color == board.turn}
    out = []
    # Illegal: fine on the own board, refused because of the unseen enemy.
    illegal = [m for m in own.pseudo_legal_moves
               if m not in legal and m.to_square not in mine and not m.promotion
               and not own.is_castling(m)
               and not (own.piece_at(m.from_square).piece_type == chess.PAWN
                        and chess.square_file(m.from_square) != chess.square_file(m.to_square))]
    if illegal:
        out.append(("illegal", rng.choice(illegal)))
    # Impossible: a man moved the way it never moves (a knight one step, a rook diagonally...).
    weird = []
    for sq in mine:
        p = board.piece_at(sq)
        if p.piece_type in (chess.KNIGHT, chess.ROOK, chess.BISHOP):
            for d in (-9, -8, -7, -1, 1, 7, 8, 9):
                to = sq + d
                if not 0 <= to < 64 or abs(chess.square_file(to) - chess.square_file(sq)) > 1:
                    continue
                diag = d in (-9, -7, 7, 9)
                if p.piece_type == chess.ROOK and not diag:
                    continue
                if p.piece_type == chess.BISHOP and diag:
                    continue
                if to not in mine:
                    weird.append(chess.Move(sq, to))
    if weird:
        out.append(("impossible", rng.choice(weird)))
    # Pawn-capture attempt onto a square where no capture is legal.
    pawn_caps = []
    for sq in mine:
        if board.piece_at(sq).piece_type != chess.PAWN:
            continue
        fwd = 8 if board.turn == chess.WHITE else -8
        for df in (-1, 1):
            f = chess.square_file(sq) + df
            to = sq + fwd + df
            if 0 <= f < 8 and 0 <= to < 64 and to not in mine:
                m = chess.Move(sq, to)
                rank = chess.square_rank(to)
                if m not in legal and rank not in (0, 7):
                    pawn_caps.append(m)
    if pawn_caps:
        out.append(("pawn", rng.choice(pawn_caps)))
    # Castling that cannot be made now (no rights, men in the way, in check).
    king = board.king(board.turn)
    home = chess.E1 if board.turn == chess.WHITE else chess.E8
    if king == home:
        for to in (home + 2, home - 2):
            m = chess.Move(home, to)
            if m not in legal and to not in mine:
                out.append(("castle", m))
    return out


def decorate(board_start, moves, rules, rng):
    """Turns the move list into plies of tries, with refused tries and questions."""
    plies = []
    b = board_start.copy()
    promotions = 0
    for i, m in enumerate(moves):
        ply = []
        any_pawn_capture = any(b.piece_at(x.from_square).piece_type == chess.PAWN and b.is_capture(x)
                               for x in b.legal_moves)
        is_pawn_capture = b.piece_at(m.from_square).piece_type == chess.PAWN and b.is_capture(m)
        asked = False
        if rules in ("berkeley-any", "russian") and i % 5 == 2 and (not any_pawn_capture or is_pawn_capture):
            ply.append("ask:any")
            asked = True
            if rules == "berkeley-any" and i % 15 == 2:
                ply.append("ask:any")  # a second "Any?" in the same turn is refused
        if rules == "rand" and i % 6 == 1:
            ply.append("ask:rebuffs")
        if m.promotion:
            promotions += 1
            if m.promotion != chess.QUEEN:
                ply.append("promote:" + chess.piece_symbol(m.promotion))
        if not asked and not m.promotion and i % 3 == 0 and i >= 2:
            cands = refused_candidates(b, rng, rules)
            rng.shuffle(cands)
            for _, t in cands[: 1 + (i % 2)]:
                ply.append(t.uci() + "?")
        legal = m.uci()
        if m.promotion:
            legal = chess.Move(m.from_square, m.to_square).uci()  # the chosen piece comes from the keypad
        ply.append(legal)
        plies.append(ply)
        b.push(m)
    return plies


def main():
    for rules, options, fen, base in GAMES:
        if len(sys.argv) > 1 and rules not in sys.argv[1:]:
            continue
        for seed in range(base, base + 5000):
            rng = random.Random(seed)
            board = play(fen, rng)
            if board is None or not board.is_checkmate() or board.ply() < 62 or board.ply() > 86:
                continue
            start = chess.Board(fen) if fen else chess.Board()
            f = features(board, start)
            need_castle = rules != "russian"
            if (need_castle and f["castle"] < 1) or f["ep"] < 1 or f["promo"] < 2 or f["under"] < 1 \
                    or f["capture"] < 4 or f["check"] < 3:
                continue
            plies = decorate(start, list(board.move_stack), rules, random.Random(seed))
            game = {
                "name": f"{rules} game (seed {seed})",
                "rules": rules,
                "options": options,
                "fen": fen,
                "plies": plies,
            }
            (HERE / f"{rules}.json").write_text(json.dumps(game, indent=1) + "\n")
            print(rules, seed, board.ply(), f, file=sys.stderr)
            break
        else:
            print("no game found for", rules, file=sys.stderr)


if __name__ == "__main__":
    main()
