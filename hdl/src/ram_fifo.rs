//! A FIFO in block RAM whose writer decides what is readable: it writes entries at addresses it
//! chooses (the low bits of its own pointers) and moves `tail` (one past the last readable entry) when it commits them. The read
//! side is first-word-fall-through with valid/ready at one entry per cycle: the RAM's read is
//! registered, so up to two entries are fetched ahead into output registers.
//!
//! Pointers are `P` bits for a RAM of `2^(P-1)` entries (the extra bit tells full from empty);
//! every entry before `head` has been handed out and is free.
//! Each entry holds three fields, `A`, `B` and `C` bits wide.

use crate::stream::c;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RamFifo<const P: usize, const AW: usize, const A: usize, const B: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub wr_en: Signal<In, Bit>,
    pub wr_addr: Signal<In, Bits<AW>>,
    pub wr_a: Signal<In, Bits<A>>,
    pub wr_b: Signal<In, Bits<B>>,
    pub wr_c: Signal<In, Bits<C>>,
    /// One past the last committed entry.
    pub tail: Signal<In, Bits<P>>,
    /// Next entry to hand out; entries before it are free (entries fetched ahead into the
    /// output registers are not, so state kept beside them stays valid until they leave).
    pub head: Signal<Out, Bits<P>>,

    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_a: Signal<Out, Bits<A>>,
    pub out_b: Signal<Out, Bits<B>>,
    pub out_c: Signal<Out, Bits<C>>,

    ram_a: RAM<Bits<A>, AW>,
    ram_b: RAM<Bits<B>, AW>,
    ram_c: RAM<Bits<C>, AW>,
    one: Constant<Bits<P>>,
    fetch: DFF<Bits<P>>,
    consumed: DFF<Bits<P>>,
    inflight: DFF<Bit>,
    q0_valid: DFF<Bit>,
    q0_a: DFF<Bits<A>>,
    q0_b: DFF<Bits<B>>,
    q0_c: DFF<Bits<C>>,
    q1_valid: DFF<Bit>,
    q1_a: DFF<Bits<A>>,
    q1_b: DFF<Bits<B>>,
    q1_c: DFF<Bits<C>>,
    take: Signal<Local, Bit>,
    q0_after: Signal<Local, Bit>,
    q1_after: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
}

impl<const P: usize, const AW: usize, const A: usize, const B: usize, const C: usize> Default
    for RamFifo<P, AW, A, B, C>
{
    fn default() -> Self {
        assert_eq!(P, AW + 1, "pointers carry one bit more than addresses");
        Self {
            clock: Default::default(),
            wr_en: Default::default(),
            wr_addr: Default::default(),
            wr_a: Default::default(),
            wr_b: Default::default(),
            wr_c: Default::default(),
            tail: Default::default(),
            head: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_a: Default::default(),
            out_b: Default::default(),
            out_c: Default::default(),
            ram_a: Default::default(),
            ram_b: Default::default(),
            ram_c: Default::default(),
            one: c::<P>(1),
            fetch: Default::default(),
            consumed: Default::default(),
            inflight: Default::default(),
            q0_valid: Default::default(),
            q0_a: Default::default(),
            q0_b: Default::default(),
            q0_c: Default::default(),
            q1_valid: Default::default(),
            q1_a: Default::default(),
            q1_b: Default::default(),
            q1_c: Default::default(),
            take: Default::default(),
            q0_after: Default::default(),
            q1_after: Default::default(),
            issue: Default::default(),
        }
    }
}

impl<const P: usize, const AW: usize, const A: usize, const B: usize, const C: usize> Logic
    for RamFifo<P, AW, A, B, C>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fetch, consumed, inflight, q0_valid, q0_a, q0_b, q0_c, q1_valid, q1_a, q1_b, q1_c);
        self.ram_a.write_clock.next = self.clock.val();
        self.ram_b.write_clock.next = self.clock.val();
        self.ram_c.write_clock.next = self.clock.val();
        self.ram_a.read_clock.next = self.clock.val();
        self.ram_b.read_clock.next = self.clock.val();
        self.ram_c.read_clock.next = self.clock.val();
        self.ram_a.write_enable.next = self.wr_en.val();
        self.ram_b.write_enable.next = self.wr_en.val();
        self.ram_c.write_enable.next = self.wr_en.val();
        self.ram_a.write_address.next = self.wr_addr.val();
        self.ram_b.write_address.next = self.wr_addr.val();
        self.ram_c.write_address.next = self.wr_addr.val();
        self.ram_a.write_data.next = self.wr_a.val();
        self.ram_b.write_data.next = self.wr_b.val();
        self.ram_c.write_data.next = self.wr_c.val();

        // Output queue of two: take from the front, then the fetched entry lands behind.
        self.take.next = self.q0_valid.q.val() & self.out_ready.val();
        self.q0_after.next = self.q0_valid.q.val();
        self.q1_after.next = self.q1_valid.q.val();
        if self.take.val() {
            self.q0_after.next = self.q1_valid.q.val();
            self.q1_after.next = false;
            self.q0_valid.d.next = self.q1_valid.q.val();
            self.q0_a.d.next = self.q1_a.q.val();
            self.q0_b.d.next = self.q1_b.q.val();
            self.q0_c.d.next = self.q1_c.q.val();
            self.q1_valid.d.next = false;
        }
        if self.inflight.q.val() {
            if self.q0_after.val() {
                self.q1_valid.d.next = true;
                self.q1_a.d.next = self.ram_a.read_data.val();
                self.q1_b.d.next = self.ram_b.read_data.val();
                self.q1_c.d.next = self.ram_c.read_data.val();
            } else {
                self.q0_valid.d.next = true;
                self.q0_a.d.next = self.ram_a.read_data.val();
                self.q0_b.d.next = self.ram_b.read_data.val();
                self.q0_c.d.next = self.ram_c.read_data.val();
            }
        }
        // Fetch while a committed entry waits and the queue will have room when it lands.
        self.issue.next = (self.fetch.q.val() != self.tail.val())
            & !(self.q0_after.val() & (self.q1_after.val() | self.inflight.q.val()));
        self.ram_a.read_address.next = self.fetch.q.val().get_bits::<AW>(0);
        self.ram_b.read_address.next = self.fetch.q.val().get_bits::<AW>(0);
        self.ram_c.read_address.next = self.fetch.q.val().get_bits::<AW>(0);
        self.inflight.d.next = self.issue.val();
        if self.issue.val() {
            self.fetch.d.next = self.fetch.q.val() + self.one.val();
        }
        if self.take.val() {
            self.consumed.d.next = self.consumed.q.val() + self.one.val();
        }
        self.head.next = self.consumed.q.val();

        self.out_valid.next = self.q0_valid.q.val();
        self.out_a.next = self.q0_a.q.val();
        self.out_b.next = self.q0_b.q.val();
        self.out_c.next = self.q0_c.q.val();
    }
}
