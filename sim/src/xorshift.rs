//! xorshift64: the simulator's deterministic, dependency-free random source for idle cycles,
//! backpressure and network faults (reproducible from a seed).

#[derive(Debug, Clone, Copy)]
pub(crate) struct XorShift(u64);

impl XorShift {
    /// A generator from `seed` (0 is not a valid xorshift state, so the low bit is forced).
    pub(crate) fn new(seed: u64) -> XorShift {
        XorShift(seed | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// True on about `percent` % of calls.
    pub(crate) fn percent(&mut self, percent: u32) -> bool {
        ((self.next() % 100) as u32) < percent
    }
}
