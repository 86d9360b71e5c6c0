//! Every announcement and private message of every rule set, in English, French and
//! Russian, as the speakers receive it from the one routing function: no square or man in
//! a form a voice misreads (notation, "a5" read as the article, Latin letters for a
//! Russian voice), and each text synthesised by espeak-ng with the table's voice and
//! measured non-silent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;

use kriegspiel_referee::shakmaty::{Bitboard, Board, Color, Piece, Role, Square};
use kriegspiel_referee::{
    Capture, Checks, End, EndReason, GameResult, Lang, Man, Notation, Options, PawnTries, Refusal,
    RefusalKind, Reply, Report, RuleSet, Try, TrySquares, Verdict, Wording,
};
use kriegspiel_speech::speaker::espeak_voice;
use kriegspiel_speech::words::misreading;
use kriegspiel_speech::{hear, Hearer, Positions};
use kriegspiel_table::{Output, PrivateMessage, PublicMessage, TableEnd, Termination};

const LANGS: [Lang; 3] = [Lang::En, Lang::Fr, Lang::Ru];
/// One square on every file, at several ranks.
const SAMPLE: [Square; 8] = [
    Square::A5,
    Square::B2,
    Square::C7,
    Square::D4,
    Square::E4,
    Square::F1,
    Square::G8,
    Square::H3,
];
const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

fn wordings(lang: Lang) -> Vec<Wording> {
    let mut v = Vec::new();
    for rules in RuleSet::ALL {
        for notation in [Notation::Algebraic, Notation::Descriptive] {
            for try_squares in [TrySquares::Destination, TrySquares::Source] {
                if rules != RuleSet::Rand
                    && (notation != Notation::Algebraic || try_squares != TrySquares::Destination)
                {
                    continue;
                }
                let options = Options {
                    notation,
                    try_squares,
                    ..Options::default()
                };
                v.push(Wording::new(rules, options, lang));
            }
        }
    }
    v
}

fn report(w: &Wording, mover: Option<Color>) -> Report {
    Report {
        rules: w.rules,
        mover,
        played: mover.map(|_| Try::new(Square::E2, Square::E4)),
        to_move: mover.map_or(Color::White, |m| !m),
        capture: None,
        checks: Checks::default(),
        pawn_tries: PawnTries::Silent,
        promotion: (w.rules == RuleSet::Rand).then_some(false),
        end: None,
    }
}

/// Every kind of table output a player may hear, with the squares of `squares`.
fn outputs(w: &Wording, squares: &[Square]) -> Vec<Output> {
    let mut out = vec![Output::Started {
        report: report(w, None),
    }];
    let moved = |r: Report| Output::Verdict {
        color: r.mover.unwrap_or(Color::White),
        tried: Try::new(Square::E2, Square::E4),
        verdict: Verdict::Moved(r),
    };
    for mover in [Color::White, Color::Black] {
        let base = report(w, Some(mover));
        out.push(moved(base));
        for sq in squares {
            for man in [Some(Man::Pawn), Some(Man::Piece), None] {
                out.push(moved(Report {
                    capture: Some(Capture { square: *sq, man }),
                    ..base
                }));
            }
            out.push(moved(Report {
                pawn_tries: PawnTries::Squares(Bitboard::from(*sq)),
                ..base
            }));
            out.push(moved(Report {
                pawn_tries: PawnTries::Squares(Bitboard::from(*sq) | Bitboard::from(Square::H6)),
                ..base
            }));
        }
        for checkers in [
            vec![Square::E8],
            vec![Square::A1],
            vec![Square::H4],
            vec![Square::A5],
            vec![Square::F3],
            vec![Square::E8, Square::F3],
        ] {
            let bb = checkers
                .iter()
                .fold(Bitboard::EMPTY, |b, s| b | Bitboard::from(*s));
            out.push(moved(Report {
                checks: Checks::of(Square::E1, bb),
                ..base
            }));
        }
        for tries in [
            PawnTries::Exists(true),
            PawnTries::Exists(false),
            PawnTries::Count(0),
            PawnTries::Count(1),
            PawnTries::Count(3),
        ] {
            out.push(moved(Report {
                pawn_tries: tries,
                ..base
            }));
        }
        out.push(moved(Report {
            promotion: Some(true),
            ..base
        }));
        for reason in [
            EndReason::Checkmate,
            EndReason::Stalemate,
            EndReason::InsufficientMaterial,
            EndReason::FiftyMoves,
            EndReason::Repetition,
        ] {
            for result in [
                GameResult::WhiteWins,
                GameResult::BlackWins,
                GameResult::Draw,
            ] {
                out.push(moved(Report {
                    end: Some(End { result, reason }),
                    ..base
                }));
            }
        }
        for kind in [RefusalKind::Illegal, RefusalKind::Impossible] {
            let refusal = Refusal {
                rules: w.rules,
                kind,
                mover,
            };
            out.push(Output::Verdict {
                color: mover,
                tried: Try::new(Square::E2, Square::E5),
                verdict: Verdict::Refused(refusal),
            });
            out.push(Output::Reply {
                color: mover,
                question: kriegspiel_referee::Question::Any,
                reply: Reply::Refused(refusal),
            });
        }
        for yes in [true, false] {
            out.push(Output::Reply {
                color: mover,
                question: kriegspiel_referee::Question::Any,
                reply: Reply::PawnCaptures {
                    rules: w.rules,
                    asker: mover,
                    yes,
                },
            });
        }
        for count in [None, Some(0), Some(1), Some(2), Some(5)] {
            out.push(Output::Reply {
                color: mover,
                question: kriegspiel_referee::Question::Rebuffs,
                reply: Reply::Rebuffs {
                    rules: w.rules,
                    asker: mover,
                    count,
                },
            });
        }
        let mut messages = vec![
            PrivateMessage::PromotionChoice(Role::Knight),
            PrivateMessage::PromotionChoice(Role::Queen),
            PrivateMessage::BadPromotionChoice(Role::King),
            PrivateMessage::BackInSync,
            PrivateMessage::NotYourTurn,
            PrivateMessage::GameOver,
            PrivateMessage::RefereeError(kriegspiel_referee::Error::GameOver),
            PrivateMessage::LowTime(60),
            PrivateMessage::NothingToAccept,
        ];
        for sq in squares {
            messages.extend([
                PrivateMessage::MustMoveTouched(*sq),
                PrivateMessage::SquareShouldBeEmpty(*sq),
                PrivateMessage::ManMissing(*sq),
                PrivateMessage::RemoveCaptured(*sq),
            ]);
        }
        out.extend(messages.into_iter().map(|message| Output::Private {
            color: mover,
            message,
        }));
        let ends = [
            Termination::Resignation(mover),
            Termination::TimeForfeit(mover),
            Termination::DrawAgreed,
            Termination::Adjudication {
                reason: "the arbiter's decision".into(),
            },
            Termination::Voided {
                reason: "boards mixed up".into(),
            },
        ];
        for termination in ends {
            out.push(Output::Public {
                message: PublicMessage::GameEnded(TableEnd {
                    result: Some(GameResult::win_for(!mover)),
                    termination,
                }),
            });
        }
        out.push(Output::Public {
            message: PublicMessage::DrawOffered(mover),
        });
    }
    for message in [
        PublicMessage::Paused,
        PublicMessage::Resumed,
        PublicMessage::PositionCorrected,
        PublicMessage::MoveTakenBack,
        PublicMessage::BoardsSwapped,
        PublicMessage::SameBoardId(7),
        PublicMessage::ClocksStarted(Color::White),
    ] {
        out.push(Output::Public { message });
    }
    out
}

/// Positions where each square holds each man of either colour, so that private messages
/// name men; and one empty position, so that they say "the man".
fn positions(role: Option<Role>) -> Positions {
    let mut known = Positions::default();
    if let Some(role) = role {
        for color in [Color::White, Color::Black] {
            let mut board = Board::empty();
            for sq in Square::ALL {
                board.set_piece_at(sq, Piece { color, role });
            }
            known.record(&board);
        }
    }
    known
}

fn texts(lang: Lang, squares: &[Square]) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for w in wordings(lang) {
        for role in ROLES.map(Some).into_iter().chain([None]) {
            let known = positions(role);
            for o in outputs(&w, squares) {
                let u = hear(&w, lang, &o, &known).unwrap_or_else(|| panic!("{o:?} is not heard"));
                // Private words are for their player only; refusals as the rules say.
                if matches!(o, Output::Private { .. }) {
                    assert!(matches!(u.hearer, Hearer::Player(_)), "{o:?}");
                }
                all.insert(u.text);
            }
        }
    }
    all
}

#[test]
fn no_text_is_misread_on_any_square() {
    for lang in LANGS {
        let all = texts(lang, &Square::ALL);
        assert!(all.len() > 300, "{lang:?}: {}", all.len());
        for t in &all {
            assert_eq!(misreading(lang, t), None, "{lang:?}");
        }
    }
}

#[test]
fn every_text_is_synthesised_and_not_silent() {
    let mut count = 0;
    for lang in LANGS {
        for t in texts(lang, &SAMPLE) {
            let pcm = common::espeak(espeak_voice(lang), &t);
            let rms = common::rms(&pcm);
            // At least a quarter of a second of speech, and audible.
            assert!(
                pcm.len() > 22050 / 4,
                "{lang:?}: '{t}' is {} samples",
                pcm.len()
            );
            assert!(rms > 0.01, "{lang:?}: '{t}' is silent (RMS {rms})");
            count += 1;
        }
    }
    eprintln!("{count} texts synthesised");
}
