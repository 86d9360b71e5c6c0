"""The second ear's decisions, in a free turn and while a read-back waits, replayed at other
limits from bench dumps (docs/VOICE.md, twentieth round). Each dump is the output of

  HELDOUT_LETTERS=1 HELDOUT_THREADS=1 cargo bench -p kriegspiel-voice --bench heldout -- dump
  (or `-- tuning` with HELDOUT_DECIDE=1), which prints one line per utterance heard.

  replay.py tries DUMP                      # letter and NATO/Anna tries at each try margin
  replay.py commands ALONE DUMP LEAD DOUBT  # commands at other limits; ALONE: HELDOUT_EAR=off
  replay.py judges ALONE DUMP               # commands either judge alone had right
  replay.py answers ALONE DUMP [LEAD DOUBT] # a read-back's answers at other limits (every
                                            # pair without LEAD DOUBT)

`tries`: where the ear replaced PocketSphinx's try (not rescued one it rejected), a margin
over its lead leaves no try (torn: asked again), as `ear::DEFAULT_TRY_MARGIN` does.
`commands`: a command PocketSphinx rejected or would read back is taken when the ear's best
word is the command PocketSphinx's grammar forced, leads by LEAD and doubts at most DOUBT, as
`ear::Sureness::COMMANDS` does ("confirm" and "cancel" as the dump decided: Moonshine's
written word is not in it). `judges`: the ceiling of any rule choosing between the two.
`answers`: an utterance PocketSphinx alone rejected while a read-back waits is taken when its
answer grammar, forced to choose, chose the ear's meaning, and the ear's best answer leads by
LEAD and doubts at most DOUBT (the seventh round's rule; the vetoes and the written word
since are not replayed).
"""
import collections
import re
import sys

from answers import MEANS

TRY_EAR = re.compile(r"try_ear Some\(\((\d+), ([-\d.e]+), ([-\d.e]+), (\w+), ([-\d.e]+), (\w+)\)\)")
EAR = re.compile(r'ear Some\(\("([^"]*)", ([-\d.e]+), ([-\d.e]+), (\w+), (\w+), (\w+)\)\)')
UCI = re.compile(r"^[a-h][1-8][a-h][1-8]")
IDS = {"my men": "my-men", "offer draw": "offer-draw"}


def lines(path):
    """Each utterance's line: (key, fields), the key naming it across dumps."""
    seen = collections.Counter()
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 14 or f[1] not in ("free", "reply"):
            continue
        key = (f[0], f[1], f[2], f[3], f[4])
        seen[key] += 1
        yield key + (seen[key],), f


def utterance(f):
    ear = EAR.search("\t".join(f))
    words = f[7].strip("'")
    return dict(kind=f[0], level=f[3], want=f[5].split()[1], got=f[6].split()[1],
                forced=IDS.get(words, words),
                ear=(IDS.get(ear.group(1), ear.group(1)), float(ear.group(2)),
                     float(ear.group(3))) if ear else None,
                agrees=bool(ear) and ear.group(4) == "true",
                try_ear=TRY_EAR.search("\t".join(f)))


def tries(path, margins=(2, 2.5, 3, 3.5, 4, 4.5, 5)):
    rows = [utterance(f) for key, f in lines(path) if key[1] == "free"]
    for margin in margins:
        t = collections.Counter()
        for r in rows:
            if r["kind"] not in ("LetterTry", "TryInReadBack"):
                continue
            got, m = r["got"], r["try_ear"]
            replaced = m and m.group(4) == "true" and m.group(6) != "true"
            if replaced and float(m.group(2)) < margin:
                got = "rejected"
            t[r["kind"], "right"] += got == r["want"]
            t[r["kind"], "wrong"] += got != r["want"] and bool(UCI.match(got))
            t[r["kind"]] += 1
        print(f"margin {margin}: letters {t['LetterTry', 'right']}/{t['LetterTry']} "
              f"({t['LetterTry', 'wrong']} another try), NATO/Anna "
              f"{t['TryInReadBack', 'right']}/{t['TryInReadBack']} "
              f"({t['TryInReadBack', 'wrong']} another try)")


def paired(alone_path, path, how="free", kinds=("Command", "Chatter")):
    alone = {key: utterance(f) for key, f in lines(alone_path) if key[1] == how}
    for key, f in lines(path):
        if key[1] == how and key in alone and f[0] in kinds:
            yield alone[key], utterance(f)


def commands(alone_path, path, lead, doubt):
    t = collections.Counter()
    for a, r in paired(alone_path, path):
        got = r["got"]
        if not (UCI.match(a["got"]) or UCI.match(got)) and r["ear"]:
            best, margin, d = r["ear"]
            got = a["got"]
            doubted = got == "rejected" or got.endswith("?")
            if doubted and best == a["forced"] and margin >= lead and d <= doubt:
                got = best if best not in ("confirm", "cancel") else r["got"]
            elif got in ("confirm", "cancel"):
                got = r["got"]
        if r["kind"] == "Command":
            t["right"] += got in (r["want"], r["want"] + "?")
            t["another"] += got not in (r["want"], r["want"] + "?", "rejected")
            t["commands"] += 1
        else:
            t["chatter taken"] += got != "rejected"
            t["chatter"] += 1
    print(f"lead {lead} doubt {doubt}: commands {t['right']}/{t['commands']} (at once or read "
          f"back; {t['another']} another), chatter taken {t['chatter taken']}/{t['chatter']}")


def judges(alone_path, path):
    t = collections.Counter()
    for a, r in paired(alone_path, path):
        if r["kind"] != "Command":
            continue
        want = r["want"]
        sphinx = a["got"] in (want, want + "?")
        ear = bool(r["ear"]) and r["ear"][0] == want
        t["commands"] += 1
        t["taken"] += r["got"] in (want, want + "?")
        t["PocketSphinx"] += sphinx
        t["the ear"] += ear
        t["either"] += sphinx or ear
    print(", ".join(f"{k} {v}" for k, v in t.items()))


def answers(alone_path, path, limits):
    kinds = ("Answer", "Command", "Chatter", "TryInReadBack")
    rows = list(paired(alone_path, path, "reply", kinds))
    for lead, doubt in limits:
        t = collections.Counter()
        for a, r in rows:
            got = a["got"]
            if got == "rejected" and r["ear"] and r["agrees"]:
                best, margin, d = r["ear"]
                if margin >= lead and d <= doubt:
                    got = MEANS[best]
            if r["kind"] == "Answer":
                t["answers"] += 1
                t["right"] += got == r["want"]
            else:
                t["others"] += 1
                t["as confirm"] += got == "confirm" and r["want"] != "confirm"
                t["as cancel"] += got == "cancel" and r["want"] != "cancel"
        print(f"lead {lead} doubt {doubt}: answers {t['right']}/{t['answers']}, others taken for "
              f"confirm {t['as confirm']}, for cancel {t['as cancel']} (of {t['others']})")


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["tries", dump]:
            tries(dump)
        case ["commands", alone, dump, lead, doubt]:
            commands(alone, dump, float(lead), float(doubt))
        case ["judges", alone, dump]:
            judges(alone, dump)
        case ["answers", alone, dump]:
            answers(alone, dump, [(m, d) for m in (0, 1, 2, 3, 4, 6)
                                  for d in (0.5, 1, 1.5, 2, 3, 4, 6, 8)])
        case ["answers", alone, dump, lead, doubt]:
            answers(alone, dump, [(float(lead), float(doubt))])
        case _:
            sys.exit(__doc__)
