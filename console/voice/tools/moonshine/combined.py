"""Letter tries in a free turn decided by one combined score instead of the rules
(docs/VOICE.md, twenty-fifth round), replayed from bench dumps (see replay.py for how a dump
is made; give one dump per set, the first being the set the limits are reported for first).

  combined.py DUMP...

Each try the ear weighed (the dump's `weighed` column: PocketSphinx's score and the ear's
for every alternative) is scored ear + W * PocketSphinx / 1000; an alternative the lattice
did not name (a letter neighbour) gets the lowest PocketSphinx score named less P. The best
is taken when it leads the next by L, PocketSphinx's ratio is at least R and the ear's doubt
at most D; else nothing is taken (asked again). Chatter counts when a try is taken for it.
Prints the rules' own figures per set, then for each cap on tries taken for another try
(summed over the sets) the limits that keep the most right tries.
"""
import itertools
import re
import sys

TRY_EAR = re.compile(r"try_ear Some\(\((\d+), ([-\d.e+]+), ([-\d.e+]+), (\w+), ([-\d.e+]+), (\w+)\)\)")
RATIO = re.compile(r"\tratio (-?\d+)\t")
WEIGHED = re.compile(r"\tweighed (\S*)")
UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")


def utterances(path):
    """(kind, expected, got, ratio, doubt, [(uci, ps or None, ear)]) of each free-turn line."""
    out = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 15 or f[1] != "free" or f[0] not in ("LetterTry", "Chatter"):
            continue
        ear = TRY_EAR.search(line)
        weighed = WEIGHED.search(line)
        alternatives = []
        for w in (weighed.group(1).split(",") if weighed and weighed.group(1) else []):
            uci, ps, score = w.split(":")
            alternatives.append((uci, None if ps == "-" else int(ps), float(score)))
        out.append((f[0], f[5].split()[1], f[6].split()[1], int(RATIO.search(line).group(1)),
                    float(ear.group(5)) if ear else float("inf"), alternatives))
    return out


def decide(u, w, p, lead, ratio, doubt):
    _, _, got, said_ratio, said_doubt, alternatives = u
    if not alternatives:
        return got
    if said_ratio < ratio or said_doubt > doubt:
        return "rejected"
    named = [ps for _, ps, _ in alternatives if ps is not None]
    lowest = (min(named) if named else -9000) - p
    scored = sorted(((ear + w * (lowest if ps is None else ps) / 1000, uci)
                     for uci, ps, ear in alternatives), reverse=True)
    if len(scored) > 1 and scored[0][0] - scored[1][0] < lead:
        return "rejected"
    return scored[0][1]


def count(us, limits):
    right = wrong = chatter = 0
    for u in us:
        d = decide(u, *limits) if limits else u[2]
        if u[0] == "Chatter":
            chatter += UCI.fullmatch(d) is not None
        elif d == u[1]:
            right += 1
        elif d != "rejected":
            wrong += 1
    return right, wrong, chatter


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sets = [utterances(path) for path in sys.argv[1:]]
    print("the rules:", [count(us, None) for us in sets])
    grid = itertools.product((0, 1, 2, 3, 5, 7, 10, 15, 20, 30), (0, 300, 1000, 3000),
                             (0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4), (-3000, -1000, 0, 500, 1000),
                             (20, 25, 30, float("inf")))
    results = []
    for limits in grid:
        per_set = [count(us, limits) for us in sets]
        results.append((sum(r for r, _, _ in per_set), sum(w for _, w, _ in per_set),
                        sum(c for _, _, c in per_set), limits, per_set))
    for cap in (5, 8, 10, 14, 20):
        kept = [r for r in results if r[1] <= cap and r[2] == 0]
        if kept:
            right, wrong, _, limits, per_set = max(kept, key=lambda r: (r[0], -r[1]))
            print(f"at most {cap} another try: {right} right, {wrong} another; W P L R D = "
                  f"{limits}; per set (right, another, chatter) {per_set}")
