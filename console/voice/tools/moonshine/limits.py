"""The second ear's limits, tried on a bench dump (docs/VOICE.md, seventh round).

  cargo bench -p kriegspiel-voice --bench heldout -- tuning   with HELDOUT_DECIDE=1
      HELDOUT_EAR_LIMITS="-1000 1000" HELDOUT_LETTERS=1, its output in DUMP
  limits.py DUMP                 # every margin and doubt: answers right, others taken
  limits.py DUMP MARGIN DOUBT    # one pair, by level, and every answer wrongly taken or missed

Each `reply` line is an utterance heard while a read-back waits. Where the ear was asked
(PocketSphinx rejected the utterance), its answer counts when PocketSphinx's forced answer
agreed, its margin is at least MARGIN and its doubt at most DOUBT; elsewhere PocketSphinx's
own decision stands.
"""
import collections, re, sys

MEANS = {"confirm": "confirm", "yes": "confirm", "cancel": "cancel", "no": "cancel"}
EAR = re.compile(r'ear Some\(\("(\w+)", ([-\d.e]+), ([-\d.e]+), (\w+), (\w+)\)\)')


def rows(path):
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 13 or f[1] != "reply":
            continue
        m = EAR.match(f[12])
        ear = (m.group(1), float(m.group(2)), float(m.group(3)), m.group(4) == "true") if m else None
        yield dict(kind=f[0], level=f[3], text=f[4].strip("'"), want=f[5].split()[1],
                   got=f[6].split()[1], ear=ear)


def decide(r, margin, doubt):
    if r["ear"] is None:
        return r["got"]
    word, m, d, agrees = r["ear"]
    return MEANS[word] if agrees and m >= margin and d <= doubt else "rejected"


def tally(rs, margin, doubt):
    t = collections.Counter()
    for r in rs:
        got = decide(r, margin, doubt)
        if r["want"] in ("confirm", "cancel"):
            t["answers"] += 1
            t["right"] += got == r["want"]
        else:
            t["others"] += 1
            t["as_confirm"] += got == "confirm"
            t["as_cancel"] += got == "cancel"
    return dict(t)


def main():
    rs = list(rows(sys.argv[1]))
    print("PocketSphinx alone", tally(rs, float("inf"), float("-inf")))
    if len(sys.argv) == 2:
        for m in (0, 1, 2, 3, 4, 5, 6, 8):
            for d in (0.5, 1, 1.5, 2, 3, 4, 6, 8, 1000):
                print(m, d, tally(rs, m, d))
        return
    margin, doubt = float(sys.argv[2]), float(sys.argv[3])
    for level in ("clean", "20 dB", "15 dB"):
        print(level, tally([r for r in rs if r["level"] == level], margin, doubt))
    print("all", tally(rs, margin, doubt))
    for r in rs:
        got = decide(r, margin, doubt)
        answer = r["want"] in ("confirm", "cancel")
        if (answer and got != r["want"]) or (not answer and got in ("confirm", "cancel")):
            print("  ", r["kind"], r["level"], repr(r["text"]), "->", got, "(PocketSphinx:", r["got"] + ")", r["ear"])


if __name__ == "__main__":
    main()
