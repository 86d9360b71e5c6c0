use reed_matrix::{Debouncer, Occupancy, Square};

/// Filtered flips (raw changes the debouncer threw away) that make a square "chattering".
pub const CHATTER_GLITCHES: u16 = 4;

/// What the operator should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompt {
    /// Put one magnet (one man) on this square.
    Place(Square),
    /// Take the magnet off again; the board must be empty before `next`.
    LiftAll { next: Option<Square> },
    /// Every square has been visited.
    Done,
}

/// The per-square hardware check: the operator walks one magnet over a1, b1, …, h8 on an
/// otherwise empty board; every scan is fed to [`SelfTest::observe`].
///
/// It records which squares ever closed, which closed together (ghosting without diodes,
/// shorted wires: with a single magnet only one square may ever be closed), which closed
/// when another was asked for (swapped rows/columns), and raw flips the debouncer had to
/// filter (chatter).
#[derive(Debug, Clone)]
pub struct SelfTest {
    debouncer: Debouncer,
    prompt: Prompt,
    last_raw: Occupancy,
    closed_ever: Occupancy,
    together: [u64; 64],
    instead: [Option<Square>; 64],
    raw_flips: [u16; 64],
    accepted_flips: [u16; 64],
}

/// The outcome of a [`SelfTest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfTestReport {
    /// Squares that never closed (dead switch, missing diode, cut wire, skipped).
    pub never_closed: Occupancy,
    /// For each square, the other squares that were closed at the same time.
    pub together: [Occupancy; 64],
    /// For each asked-for square, the square that closed instead, if any.
    pub instead: [Option<Square>; 64],
    /// Raw flips the debouncer filtered, per square.
    pub glitches: [u16; 64],
}

impl SelfTestReport {
    /// Squares with at least [`CHATTER_GLITCHES`] filtered flips.
    pub fn chatter(&self) -> Occupancy {
        Square::all()
            .filter(|sq| self.glitches[usize::from(sq.index())] >= CHATTER_GLITCHES)
            .collect()
    }

    /// Squares that ever closed together with another.
    pub fn ghosted(&self) -> Occupancy {
        Square::all()
            .filter(|sq| !self.together[usize::from(sq.index())].is_empty())
            .collect()
    }

    /// True when every square closed alone, when asked, without chatter.
    pub fn passed(&self) -> bool {
        self.never_closed.is_empty()
            && self.ghosted().is_empty()
            && self.chatter().is_empty()
            && self.instead.iter().all(Option::is_none)
    }
}

impl SelfTest {
    /// A test on an empty board, debouncing over `debounce_scans` scans like the board does.
    pub fn new(debounce_scans: u8) -> Self {
        SelfTest {
            debouncer: Debouncer::new(debounce_scans, Occupancy::EMPTY),
            prompt: Prompt::Place(Square::A1),
            last_raw: Occupancy::EMPTY,
            closed_ever: Occupancy::EMPTY,
            together: [0; 64],
            instead: [None; 64],
            raw_flips: [0; 64],
            accepted_flips: [0; 64],
        }
    }

    /// What the operator should do now.
    pub fn prompt(&self) -> Prompt {
        self.prompt
    }

    /// Feeds one raw scan taken at `tick`; returns the (possibly new) prompt.
    pub fn observe(&mut self, raw: Occupancy, tick: u32) -> Prompt {
        for sq in Occupancy(raw.0 ^ self.last_raw.0).squares() {
            let i = usize::from(sq.index());
            self.raw_flips[i] = self.raw_flips[i].saturating_add(1);
        }
        self.last_raw = raw;
        for event in self.debouncer.update(raw, tick) {
            let i = usize::from(event.square().index());
            self.accepted_flips[i] = self.accepted_flips[i].saturating_add(1);
        }
        let stable = self.debouncer.stable();
        self.closed_ever = Occupancy(self.closed_ever.0 | stable.0);
        if stable.count() > 1 {
            for sq in stable.squares() {
                self.together[usize::from(sq.index())] |= stable.without(sq).0;
            }
        }
        match self.prompt {
            Prompt::Place(wanted) => {
                if let Some(got) = stable.squares().next() {
                    // Go on after the asked-for square, or after the one that closed if it
                    // lies further on (the operator moved on from a dead square).
                    let from = if stable.contains(wanted) {
                        wanted
                    } else {
                        self.instead[usize::from(wanted.index())] = Some(got);
                        got.max(wanted)
                    };
                    self.prompt = Prompt::LiftAll {
                        next: Square::new(from.index() + 1),
                    };
                }
            }
            Prompt::LiftAll { next } => {
                if stable.is_empty() {
                    self.prompt = next.map_or(Prompt::Done, Prompt::Place);
                }
            }
            Prompt::Done => {}
        }
        self.prompt
    }

    /// Gives up on the asked-for square (the operator saw nothing happen), or stops waiting
    /// for the board to be cleared.
    pub fn skip(&mut self) -> Prompt {
        self.prompt = match self.prompt {
            Prompt::Place(sq) => Square::new(sq.index() + 1).map_or(Prompt::Done, Prompt::Place),
            Prompt::LiftAll { next } => next.map_or(Prompt::Done, Prompt::Place),
            Prompt::Done => Prompt::Done,
        };
        self.prompt
    }

    /// The findings so far.
    pub fn report(&self) -> SelfTestReport {
        SelfTestReport {
            never_closed: Occupancy(!self.closed_ever.0),
            together: self.together.map(Occupancy),
            instead: self.instead,
            glitches: core::array::from_fn(|i| {
                self.raw_flips[i].saturating_sub(self.accepted_flips[i])
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reed_matrix::sim::{InstantDelay, PinBoard};
    use reed_matrix::{MatrixConfig, ReedMatrix};

    /// Walks one magnet over `order` (8 scans on, 8 scans off each) on the simulated board.
    fn walk(
        board: &PinBoard,
        order: impl Iterator<Item = Square>,
    ) -> (SelfTest, std::vec::Vec<Prompt>) {
        let mut matrix = ReedMatrix::new(
            board.rows(),
            board.cols(),
            InstantDelay,
            MatrixConfig::default(),
        );
        let mut test = SelfTest::new(3);
        let mut prompts = std::vec![test.prompt()];
        let mut tick = 0;
        for sq in order {
            for magnet in [true, false] {
                board.set_magnets(if magnet {
                    Occupancy::EMPTY.with(sq)
                } else {
                    Occupancy::EMPTY
                });
                for _ in 0..8 {
                    let p = test.observe(matrix.scan().unwrap(), tick);
                    if prompts.last() != Some(&p) {
                        prompts.push(p);
                    }
                    tick += 1;
                }
            }
        }
        (test, prompts)
    }

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    #[test]
    fn a_healthy_board_passes_and_the_prompts_walk_a1_to_h8() {
        let board = PinBoard::new();
        let (test, prompts) = walk(&board, Square::all());
        let report = test.report();
        assert!(report.passed(), "{report:?}");
        assert_eq!(prompts.len(), 64 * 2 + 1);
        assert_eq!(prompts[0], Prompt::Place(Square::A1));
        assert_eq!(
            prompts[1],
            Prompt::LiftAll {
                next: Some(sq("b1"))
            }
        );
        assert_eq!(prompts[2], Prompt::Place(sq("b1")));
        assert_eq!(prompts[128], Prompt::Done);
    }

    #[test]
    fn dead_shorted_and_chattering_switches_are_reported() {
        let board = PinBoard::new();
        board.set_dead(Occupancy::EMPTY.with(sq("e4")));
        board.add_short(sq("b2"), sq("c2"));
        board.set_chatter(Occupancy::EMPTY.with(sq("g7")));
        let (test, prompts) = walk(&board, Square::all());
        let report = test.report();
        assert!(!report.passed());
        assert_eq!(
            report.never_closed,
            Occupancy::EMPTY.with(sq("e4")).with(sq("g7"))
        );
        assert_eq!(
            report.ghosted(),
            Occupancy::EMPTY.with(sq("b2")).with(sq("c2"))
        );
        assert_eq!(
            report.together[usize::from(sq("b2").index())],
            Occupancy::EMPTY.with(sq("c2"))
        );
        assert_eq!(report.chatter(), Occupancy::EMPTY.with(sq("g7")));
        // The walk moved on past the dead square when f4 closed instead.
        assert_eq!(
            report.instead[usize::from(sq("e4").index())],
            Some(sq("f4"))
        );
        assert!(prompts.contains(&Prompt::LiftAll {
            next: Some(sq("g4"))
        }));
        assert_eq!(prompts.last(), Some(&Prompt::Done));
    }

    #[test]
    fn skipping_moves_the_prompt_on_and_leaves_the_square_unclosed() {
        let mut test = SelfTest::new(2);
        assert_eq!(test.skip(), Prompt::Place(sq("b1")));
        let b1 = Occupancy::EMPTY.with(sq("b1"));
        test.observe(b1, 0);
        assert_eq!(
            test.observe(b1, 1),
            Prompt::LiftAll {
                next: Some(sq("c1"))
            }
        );
        assert_eq!(test.skip(), Prompt::Place(sq("c1")));
        assert!(test.report().never_closed.contains(Square::A1));
        assert!(!test.report().never_closed.contains(sq("b1")));
    }
}
