use crate::{Occupancy, Square};

/// Largest accepted debounce length, in scans.
pub const MAX_DEBOUNCE_SCANS: u8 = 64;

/// A switch change accepted by the [`Debouncer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchEvent {
    /// A magnet left `square`; `since` is the tick of the first scan that saw it gone.
    Lift { square: Square, since: u32 },
    /// A magnet arrived on `square`; `since` is the tick of the first scan that saw it.
    Place { square: Square, since: u32 },
}

impl SwitchEvent {
    /// The square that changed.
    pub fn square(self) -> Square {
        match self {
            SwitchEvent::Lift { square, .. } | SwitchEvent::Place { square, .. } => square,
        }
    }

    /// The tick at which the change started.
    pub fn since(self) -> u32 {
        match self {
            SwitchEvent::Lift { since, .. } | SwitchEvent::Place { since, .. } => since,
        }
    }
}

/// Whole-board debouncer, pure: one call of [`Debouncer::update`] per scan, with the scan's
/// tick passed in (a scan counter or a millisecond clock; it only stamps events).
///
/// Each switch is filtered on its own: its change is accepted once `scans` consecutive
/// scans agree on the new level, so chatter on one square never delays another. Events
/// carry the tick of the first of those scans, so the debounce delay does not skew the
/// reported times.
#[derive(Debug, Clone)]
pub struct Debouncer {
    scans: u8,
    stable: Occupancy,
    last_raw: Occupancy,
    /// Consecutive scans (saturating) each switch has held its `last_raw` level.
    run: [u8; 64],
    /// Tick of the first scan of each switch's current run.
    since: [u32; 64],
}

impl Debouncer {
    /// A debouncer accepting a change after `scans` identical scans (clamped to
    /// `1..=MAX_DEBOUNCE_SCANS`), starting from the known occupancy `initial`.
    pub fn new(scans: u8, initial: Occupancy) -> Self {
        Debouncer {
            scans: scans.clamp(1, MAX_DEBOUNCE_SCANS),
            stable: initial,
            last_raw: initial,
            run: [MAX_DEBOUNCE_SCANS; 64],
            since: [0; 64],
        }
    }

    /// Changes the number of identical scans needed; pending changes keep their progress.
    pub fn set_scans(&mut self, scans: u8) {
        self.scans = scans.clamp(1, MAX_DEBOUNCE_SCANS);
    }

    /// The number of identical scans needed to accept a change.
    pub fn scans(&self) -> u8 {
        self.scans
    }

    /// The debounced occupancy.
    pub fn stable(&self) -> Occupancy {
        self.stable
    }

    /// Feeds one raw scan taken at `tick`; returns the changes accepted by it, oldest first
    /// (lifts before places at the same tick).
    pub fn update(&mut self, raw: Occupancy, tick: u32) -> SwitchEvents {
        let changed = raw.0 ^ self.last_raw.0;
        for sq in Occupancy(changed).squares() {
            let i = usize::from(sq.index());
            self.run[i] = 1;
            self.since[i] = tick;
        }
        let pending = raw.0 ^ self.stable.0;
        let mut accepted = 0u64;
        for sq in Occupancy(pending).squares() {
            let i = usize::from(sq.index());
            if changed & (1 << i) == 0 {
                self.run[i] = self.run[i].saturating_add(1).min(MAX_DEBOUNCE_SCANS);
            }
            if self.run[i] >= self.scans {
                accepted |= 1 << i;
            }
        }
        self.last_raw = raw;
        let before = self.stable;
        self.stable = Occupancy((self.stable.0 & !accepted) | (raw.0 & accepted));
        let mut since = [0u32; 64];
        for sq in Occupancy(accepted).squares() {
            let i = usize::from(sq.index());
            since[i] = self.since[i];
        }
        SwitchEvents {
            lifted: before.0 & accepted,
            placed: raw.0 & accepted,
            since,
            now: tick,
        }
    }
}

/// The changes accepted by one scan, iterated oldest first; no allocation.
#[derive(Debug, Clone)]
pub struct SwitchEvents {
    lifted: u64,
    placed: u64,
    since: [u32; 64],
    now: u32,
}

impl SwitchEvents {
    /// True when the scan accepted no change.
    pub fn is_empty(&self) -> bool {
        self.lifted | self.placed == 0
    }
}

impl Iterator for SwitchEvents {
    type Item = SwitchEvent;

    fn next(&mut self) -> Option<SwitchEvent> {
        // Oldest first: the largest age (wrap-safe), then lifts before places, then index.
        let mut best: Option<(u32, bool, u8)> = None;
        for (mask, is_lift) in [(self.lifted, true), (self.placed, false)] {
            for sq in Occupancy(mask).squares() {
                let age = self.now.wrapping_sub(self.since[usize::from(sq.index())]);
                let better = match best {
                    None => true,
                    Some((best_age, best_lift, _)) => {
                        age > best_age || (age == best_age && is_lift && !best_lift)
                    }
                };
                if better {
                    best = Some((age, is_lift, sq.index()));
                }
            }
        }
        let (_, is_lift, index) = best?;
        let square = Square::new(index)?;
        let since = self.since[usize::from(index)];
        if is_lift {
            self.lifted &= !(1 << index);
            Some(SwitchEvent::Lift { square, since })
        } else {
            self.placed &= !(1 << index);
            Some(SwitchEvent::Place { square, since })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn events(d: &mut Debouncer, raw: Occupancy, tick: u32) -> std::vec::Vec<SwitchEvent> {
        d.update(raw, tick).collect()
    }

    #[test]
    fn change_is_accepted_after_n_identical_scans_and_stamped_with_the_first() {
        let mut d = Debouncer::new(3, Occupancy::WHITE_START);
        let moved = Occupancy::WHITE_START.without(sq("e2"));
        assert!(events(&mut d, moved, 10).is_empty());
        assert!(events(&mut d, moved, 15).is_empty());
        assert_eq!(d.stable(), Occupancy::WHITE_START);
        assert_eq!(
            events(&mut d, moved, 20),
            [SwitchEvent::Lift {
                square: sq("e2"),
                since: 10
            }]
        );
        assert_eq!(d.stable(), moved);
        assert!(events(&mut d, moved, 25).is_empty());
    }

    #[test]
    fn a_glitch_shorter_than_n_scans_is_filtered() {
        let mut d = Debouncer::new(3, Occupancy::EMPTY);
        let e4 = Occupancy::EMPTY.with(sq("e4"));
        for tick in 0..20u32 {
            let raw = if tick % 2 == 0 { e4 } else { Occupancy::EMPTY };
            assert!(events(&mut d, raw, tick).is_empty(), "tick {tick}");
        }
        assert_eq!(d.stable(), Occupancy::EMPTY);
        // Two scans closed then one open: still nothing.
        events(&mut d, e4, 20);
        events(&mut d, e4, 21);
        assert!(events(&mut d, Occupancy::EMPTY, 22).is_empty());
        assert_eq!(d.stable(), Occupancy::EMPTY);
    }

    #[test]
    fn chatter_on_one_square_does_not_delay_another() {
        let mut d = Debouncer::new(2, Occupancy::EMPTY);
        let a1 = Occupancy::EMPTY.with(sq("a1"));
        let both = a1.with(sq("h8"));
        assert!(events(&mut d, both, 0).is_empty());
        // h8 chatters off, a1 stays closed: a1 accepted on the second scan regardless.
        assert_eq!(
            events(&mut d, a1, 1),
            [SwitchEvent::Place {
                square: sq("a1"),
                since: 0
            }]
        );
        assert!(events(&mut d, both, 2).is_empty());
        assert_eq!(
            events(&mut d, both, 3),
            [SwitchEvent::Place {
                square: sq("h8"),
                since: 2
            }]
        );
    }

    #[test]
    fn simultaneous_changes_come_oldest_first_lifts_before_places() {
        let mut d = Debouncer::new(3, Occupancy::EMPTY.with(sq("d4")));
        let s1 = Occupancy::EMPTY.with(sq("c5")); // d4 lifted, c5 placed at the same scan
        let s2 = s1.with(sq("a1")); // a1 placed one scan later
        events(&mut d, s1, 100);
        events(&mut d, s2, 101);
        assert_eq!(
            events(&mut d, s2, 102),
            [
                SwitchEvent::Lift {
                    square: sq("d4"),
                    since: 100
                },
                SwitchEvent::Place {
                    square: sq("c5"),
                    since: 100
                },
            ]
        );
        assert_eq!(
            events(&mut d, s2, 103),
            [SwitchEvent::Place {
                square: sq("a1"),
                since: 101
            }]
        );
    }

    #[test]
    fn one_scan_debounce_accepts_immediately_and_ticks_may_wrap() {
        let mut d = Debouncer::new(0, Occupancy::EMPTY);
        assert_eq!(d.scans(), 1);
        let got = events(&mut d, Occupancy::EMPTY.with(sq("b2")), u32::MAX);
        assert_eq!(
            got,
            [SwitchEvent::Place {
                square: sq("b2"),
                since: u32::MAX
            }]
        );
        d.set_scans(2);
        assert!(events(&mut d, Occupancy::EMPTY, u32::MAX).is_empty());
        let c3 = Occupancy::EMPTY.with(sq("c3"));
        assert_eq!(
            events(&mut d, c3, 3),
            [SwitchEvent::Lift {
                square: sq("b2"),
                since: u32::MAX
            }]
        );
        assert_eq!(
            events(&mut d, c3, 4),
            [SwitchEvent::Place {
                square: sq("c3"),
                since: 3
            }]
        );
    }

    #[test]
    fn lowering_n_accepts_older_changes_first_across_a_tick_wrap() {
        let mut d = Debouncer::new(10, Occupancy::EMPTY.with(sq("b2")));
        let lifted = Occupancy::EMPTY;
        let placed = lifted.with(sq("c3"));
        events(&mut d, placed, u32::MAX); // c3 placed and b2 lifted at MAX
        events(&mut d, placed.without(sq("c3")), 0); // c3 bounces open
        events(&mut d, placed, 1); // c3 closed again from tick 1
        events(&mut d, placed, 2);
        d.set_scans(2);
        assert_eq!(
            events(&mut d, placed, 3),
            [
                SwitchEvent::Lift {
                    square: sq("b2"),
                    since: u32::MAX
                },
                SwitchEvent::Place {
                    square: sq("c3"),
                    since: 1
                },
            ]
        );
    }
}
