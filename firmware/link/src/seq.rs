//! Per-direction sequence numbers: every frame a side sends carries the next number, so the
//! receiver can tell a lost frame (gap) from a repeated one (duplicate).

/// Sequence numbering for sent frames (wraps after 65535).
#[derive(Debug, Clone, Default)]
pub struct SeqCounter {
    next: u16,
}

impl SeqCounter {
    pub const fn new() -> Self {
        SeqCounter { next: 0 }
    }

    /// The number for the next frame to send.
    // Named as agreed in the protocol API; an Iterator would suggest the numbers can run out.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u16 {
        let seq = self.next;
        self.next = self.next.wrapping_add(1);
        seq
    }
}

/// What a received sequence number says about the frames before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqCheck {
    /// The first frame since [`SeqTracker::new`] / [`SeqTracker::reset`].
    First,
    /// Exactly the expected number.
    InOrder,
    /// `missed` frames were lost before this one; this one is accepted.
    Gap { missed: u16 },
    /// A number already seen (within the last half of the number space): drop the frame.
    Duplicate,
}

/// Sequence tracking for received frames.
#[derive(Debug, Clone, Default)]
pub struct SeqTracker {
    expected: Option<u16>,
}

impl SeqTracker {
    pub const fn new() -> Self {
        SeqTracker { expected: None }
    }

    /// Forget the history: the next frame is [`SeqCheck::First`] whatever its number.
    pub fn reset(&mut self) {
        self.expected = None;
    }

    /// The number the next in-order frame will carry, once a frame was seen.
    pub const fn expected(&self) -> Option<u16> {
        self.expected
    }

    /// Classifies `seq` and, unless it is a duplicate, advances past it.
    ///
    /// Numbers up to half the space ahead of the expected one are gaps; numbers behind it are
    /// duplicates, which is what a serial line can produce (it never reorders).
    pub fn check(&mut self, seq: u16) -> SeqCheck {
        let result = match self.expected {
            None => SeqCheck::First,
            Some(expected) => {
                let ahead = seq.wrapping_sub(expected);
                if ahead == 0 {
                    SeqCheck::InOrder
                } else if ahead < 0x8000 {
                    SeqCheck::Gap { missed: ahead }
                } else {
                    SeqCheck::Duplicate
                }
            }
        };
        if result != SeqCheck::Duplicate {
            self.expected = Some(seq.wrapping_add(1));
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_wraps() {
        let mut c = SeqCounter::new();
        assert_eq!(c.next(), 0);
        assert_eq!(c.next(), 1);
        let mut c = SeqCounter { next: u16::MAX };
        assert_eq!(c.next(), u16::MAX);
        assert_eq!(c.next(), 0);
    }

    #[test]
    fn tracker_classifies() {
        let mut t = SeqTracker::new();
        assert_eq!(t.check(10), SeqCheck::First);
        assert_eq!(t.check(11), SeqCheck::InOrder);
        assert_eq!(t.check(11), SeqCheck::Duplicate);
        assert_eq!(t.check(5), SeqCheck::Duplicate);
        assert_eq!(t.check(12), SeqCheck::InOrder);
        assert_eq!(t.check(15), SeqCheck::Gap { missed: 2 });
        assert_eq!(t.check(16), SeqCheck::InOrder);
        t.reset();
        assert_eq!(t.check(3), SeqCheck::First);
    }

    #[test]
    fn tracker_wraps() {
        let mut t = SeqTracker::new();
        assert_eq!(t.check(u16::MAX), SeqCheck::First);
        assert_eq!(t.check(0), SeqCheck::InOrder);
        assert_eq!(t.check(u16::MAX), SeqCheck::Duplicate);
        assert_eq!(t.check(3), SeqCheck::Gap { missed: 2 });
    }
}
