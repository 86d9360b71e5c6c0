"""Which phrases the second ear scores are cut into other pieces than the model writes
(docs/VOICE.md, nineteenth round).

  pieces.py [DIR]     # DIR: Moonshine's folder (default $KRIEGSPIEL_MOONSHINE, else
                      # ~/.local/share/kriegspiel/moonshine-base-en)

`kriegspiel_moonshine` cuts a phrase into the longest pieces first. Moonshine's tokenizer is
SentencePiece BPE: from the characters, it joins the neighbours whose union is the piece
learned first (the lowest id) until no union is a piece. This prints every word of the ear's
commands, answers and tries (each file's letter, NATO and Anna names) whose two cuts differ,
lower case and capitalised.
"""
import os
import sys

from answers import longest_first, read_pieces

SPACE = "\u2581"


def learned_order(ids, text):
    cut = [c.encode() for c in SPACE + text.replace(" ", SPACE)]
    while True:
        joins = [(ids[a + b], i) for i, (a, b) in enumerate(zip(cut, cut[1:])) if a + b in ids]
        if not joins:
            return cut
        _, i = min(joins)
        cut[i:i + 2] = [cut[i] + cut[i + 1]]


WORDS = """any rebuffs repeat my men confirm cancel queen rook bishop knight resign offer draw
yes no pawn king takes to one two three four five six seven eight a b c d e f g h alfa bravo
charlie delta echo foxtrot golf hotel anna bella cesar david eva felix gustav hector""".split()


def main():
    home = os.path.expanduser("~/.local/share/kriegspiel/moonshine-base-en")
    folder = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("KRIEGSPIEL_MOONSHINE", home)
    ids = {p: i for i, p in enumerate(read_pieces(os.path.join(folder, "tokenizer.bin")))}
    phrases = WORDS + ["my men", "offer draw"]
    for word in phrases:
        for form in (word, word.capitalize(), word.capitalize() + "."):
            a, b = longest_first(ids, form), learned_order(ids, form)
            if a != b:
                show = lambda cut: "|".join(p.decode("utf-8", "replace") for p in cut or [])
                print(f"{form!r:16} longest first {show(a):24} the model's {show(b)}")


if __name__ == "__main__":
    main()
