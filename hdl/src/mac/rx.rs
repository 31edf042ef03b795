//! MAC receive stage: checks and strips the Ethernet FCS, marks runts, measures the frame.
//!
//! Input is the MAC's AXI-Stream (no backpressure: a CMAC cannot be stalled; idle cycles may
//! fall anywhere, also inside a frame). Output is the same frame without its FCS, at most one
//! beat per cycle, with the verdict on `out_last`:
//! `out_user` = bad frame, and the reason bits `out_runt` / `out_bad_fcs`, plus `out_len`, the
//! frame length without FCS. With `fcs_enable` low (a hard MAC that already checked and
//! stripped the FCS) nothing is stripped or checked and only runts are marked.
//!
//! The input is registered first (with its byte count decoded from `tkeep`). Stripping: each
//! beat waits in a hold register until the next beat of its frame arrives. When
//! that one holds only FCS bytes (1..=4), it is dropped and the held beat leaves as the last,
//! shortened by the rest of the FCS; any other last beat is shortened by 4. A last beat thus
//! leaves the hold register a fixed 0 or 1 cycles after the raw last beat arrived, whatever
//! the idle cycles, so the FCS verdict (Crc32Check, 4 cycles after the raw last beat) meets
//! it at a known stage of the delay line behind the hold register.

use crate::crc::{Crc32Check, CRC_CHECK_LATENCY};
use crate::stream::{c, BEAT_BYTES};
use rnic_spec::wire::crc::INIT;
use rnic_spec::wire::MIN_FRAME_NO_FCS;
use rust_hdl::prelude::*;

/// Stages of the delay line; the output register is the last.
const STAGES: usize = 5;

#[derive(LogicBlock)]
pub struct MacRx {
    pub clock: Signal<In, Clock>,
    /// Frames carry an FCS to check and strip (soft MAC).
    pub fcs_enable: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<512>>,
    pub in_keep: Signal<In, Bits<64>>,
    pub in_last: Signal<In, Bit>,
    /// PHY/MAC error on the last beat.
    pub in_user: Signal<In, Bit>,

    pub out_valid: Signal<Out, Bit>,
    pub out_data: Signal<Out, Bits<512>>,
    /// Valid bytes of the beat, 1..=64.
    pub out_count: Signal<Out, Bits<7>>,
    pub out_last: Signal<Out, Bit>,
    /// Bad frame (runt, FCS or PHY error); valid with `out_last`.
    pub out_user: Signal<Out, Bit>,
    pub out_runt: Signal<Out, Bit>,
    pub out_bad_fcs: Signal<Out, Bit>,
    /// Frame length without FCS; valid with `out_last`.
    pub out_len: Signal<Out, Bits<17>>,

    crc: Crc32Check,
    zero7: Constant<Bits<7>>,
    zero17: Constant<Bits<17>>,
    /// Lanes whose being the last kept byte sets bit j of the byte count.
    count_bit_lanes: [Constant<Bits<64>>; 7],
    count7_bit: [Constant<Bits<7>>; 7],
    count17_bit: [Constant<Bits<17>>; 7],
    crc_init: Constant<Bits<32>>,
    fcs_len7: Constant<Bits<7>>,
    fcs_len17: Constant<Bits<17>>,
    one7: Constant<Bits<7>>,
    short_tail_base: Constant<Bits<7>>,
    min_frame: Constant<Bits<7>>,
    min_frame_fcs: Constant<Bits<7>>,

    r_valid: DFF<Bit>,
    r_data: DFF<Bits<512>>,
    r_last: DFF<Bit>,
    r_user: DFF<Bit>,
    r_count: DFF<Bits<7>>,
    r_count_wide: DFF<Bits<17>>,
    in_frame: DFF<Bit>,
    h_valid: DFF<Bit>,
    h_data: DFF<Bits<512>>,
    h_count: DFF<Bits<7>>,
    h_last: DFF<Bit>,
    h_err: DFF<Bit>,
    h_runt: DFF<Bit>,
    h_len: DFF<Bits<17>>,
    acc_len: DFF<Bits<17>>,
    v: [DFF<Bit>; STAGES],
    d: [DFF<Bits<512>>; STAGES],
    c: [DFF<Bits<7>>; STAGES],
    l: [DFF<Bit>; STAGES],
    err: [DFF<Bit>; STAGES],
    runt: [DFF<Bit>; STAGES],
    fcs_bad: [DFF<Bit>; STAGES],
    len: [DFF<Bits<17>>; STAGES],

    keep_edge: Signal<Local, Bits<64>>,
    count: Signal<Local, Bits<7>>,
    count_wide: Signal<Local, Bits<17>>,
    first: Signal<Local, Bit>,
    strip: Signal<Local, Bits<7>>,
    strip_wide: Signal<Local, Bits<17>>,
    short_tail: Signal<Local, Bit>,
    total_len: Signal<Local, Bits<17>>,
    fcs_now_bad: Signal<Local, Bit>,
    last_out: Signal<Local, Bit>,
    h_take: Signal<Local, Bit>,
}

impl Default for MacRx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            fcs_enable: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_keep: Default::default(),
            in_last: Default::default(),
            in_user: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_count: Default::default(),
            out_last: Default::default(),
            out_user: Default::default(),
            out_runt: Default::default(),
            out_bad_fcs: Default::default(),
            out_len: Default::default(),
            crc: Default::default(),
            zero7: c::<7>(0),
            zero17: c::<17>(0),
            count_bit_lanes: std::array::from_fn(|j| {
                Constant::new(bits::<64>((0..64).filter(|i| (i + 1) >> j & 1 == 1).fold(0u64, |m, i| m | 1 << i)))
            }),
            count7_bit: std::array::from_fn(|j| Constant::new(bits::<7>(1 << j))),
            count17_bit: std::array::from_fn(|j| Constant::new(bits::<17>(1 << j))),
            crc_init: Constant::new(bits::<32>(INIT as u64)),
            fcs_len7: Constant::new(bits::<7>(4)),
            fcs_len17: Constant::new(bits::<17>(4)),
            one7: Constant::new(bits::<7>(1)),
            short_tail_base: Constant::new(bits::<7>((BEAT_BYTES - 4) as u64)),
            min_frame: Constant::new(bits::<7>(MIN_FRAME_NO_FCS as u64)),
            min_frame_fcs: Constant::new(bits::<7>(MIN_FRAME_NO_FCS as u64 + 4)),
            r_valid: Default::default(),
            r_data: Default::default(),
            r_last: Default::default(),
            r_user: Default::default(),
            r_count: Default::default(),
            r_count_wide: Default::default(),
            in_frame: Default::default(),
            h_valid: Default::default(),
            h_data: Default::default(),
            h_count: Default::default(),
            h_last: Default::default(),
            h_err: Default::default(),
            h_runt: Default::default(),
            h_len: Default::default(),
            acc_len: Default::default(),
            v: Default::default(),
            d: Default::default(),
            c: Default::default(),
            l: Default::default(),
            err: Default::default(),
            runt: Default::default(),
            fcs_bad: Default::default(),
            len: Default::default(),
            keep_edge: Default::default(),
            count: Default::default(),
            count_wide: Default::default(),
            first: Default::default(),
            strip: Default::default(),
            strip_wide: Default::default(),
            short_tail: Default::default(),
            total_len: Default::default(),
            fcs_now_bad: Default::default(),
            last_out: Default::default(),
            h_take: Default::default(),
        }
    }
}

// The FCS verdict must reach the stream exactly at the stage computed above.
const _: () = assert!(CRC_CHECK_LATENCY == 4);

impl Logic for MacRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_valid, r_data, r_last, r_user, r_count, r_count_wide, in_frame, acc_len, h_valid, h_data, h_count, h_last, h_err, h_runt, h_len);
        for i in 0..STAGES {
            self.v[i].clock.next = self.clock.val();
            self.d[i].clock.next = self.clock.val();
            self.c[i].clock.next = self.clock.val();
            self.l[i].clock.next = self.clock.val();
            self.err[i].clock.next = self.clock.val();
            self.runt[i].clock.next = self.clock.val();
            self.fcs_bad[i].clock.next = self.clock.val();
            self.len[i].clock.next = self.clock.val();
        }
        for i in 1..STAGES {
            self.v[i].d.next = self.v[i - 1].q.val();
            self.d[i].d.next = self.d[i - 1].q.val();
            self.c[i].d.next = self.c[i - 1].q.val();
            self.l[i].d.next = self.l[i - 1].q.val();
            self.err[i].d.next = self.err[i - 1].q.val();
            self.runt[i].d.next = self.runt[i - 1].q.val();
            self.fcs_bad[i].d.next = self.fcs_bad[i - 1].q.val();
            self.len[i].d.next = self.len[i - 1].q.val();
        }

        // Byte count of the incoming beat from its contiguous tkeep: the last kept byte is the
        // one whose successor is not kept; encode its position + 1 (an OR per count bit, not
        // a 64-deep priority chain).
        self.keep_edge.next = self.in_keep.val() & !(self.in_keep.val() >> 1);
        self.count.next = self.zero7.val();
        self.count_wide.next = self.zero17.val();
        for j in 0..7 {
            if (self.keep_edge.val() & self.count_bit_lanes[j].val()).any() {
                self.count.next = self.count.val() | self.count7_bit[j].val();
                self.count_wide.next = self.count_wide.val() | self.count17_bit[j].val();
            }
        }
        // Input register: the beat with its byte count.
        self.r_valid.d.next = self.in_valid.val();
        self.r_data.d.next = self.in_data.val();
        self.r_last.d.next = self.in_last.val();
        self.r_user.d.next = self.in_user.val();
        self.r_count.d.next = self.count.val();
        self.r_count_wide.d.next = self.count_wide.val();
        self.first.next = !self.in_frame.q.val();
        self.strip.next = self.zero7.val();
        self.strip_wide.next = self.zero17.val();
        if self.fcs_enable.val() {
            self.strip.next = self.fcs_len7.val();
            self.strip_wide.next = self.fcs_len17.val();
        }
        self.short_tail.next = self.r_valid.q.val()
            & self.r_last.q.val()
            & !self.first.val()
            & (self.r_count.q.val() <= self.strip.val());
        self.total_len.next = self.acc_len.q.val() + self.r_count_wide.q.val();
        if self.first.val() {
            self.total_len.next = self.r_count_wide.q.val();
        }
        if self.r_valid.q.val() {
            self.in_frame.d.next = !self.r_last.q.val();
            self.acc_len.d.next = self.total_len.val();
        }

        // FCS over the whole frame as received.
        self.crc.clock.next = self.clock.val();
        self.crc.in_valid.next = self.r_valid.q.val();
        self.crc.in_first.next = self.first.val();
        self.crc.in_last.next = self.r_last.q.val();
        self.crc.in_init.next = self.crc_init.val();
        self.crc.in_data.next = self.r_data.q.val();
        self.crc.in_count.next = self.r_count.q.val();

        // Hold register: a beat waits here until the next beat of its frame shows whether that
        // one is a tail of FCS bytes only; a last beat waits one cycle. When a tail arrives the
        // held beat leaves as the last beat and the tail is dropped.
        self.h_valid.d.next = self.h_valid.q.val();
        self.h_take.next = self.h_valid.q.val() & (self.r_valid.q.val() | self.h_last.q.val());
        self.v[0].d.next = self.h_take.val();
        self.d[0].d.next = self.h_data.q.val();
        self.c[0].d.next = self.h_count.q.val();
        self.l[0].d.next = self.h_last.q.val();
        self.err[0].d.next = self.h_err.q.val();
        self.runt[0].d.next = self.h_runt.q.val();
        self.len[0].d.next = self.h_len.q.val();
        self.fcs_bad[0].d.next = false;
        if self.short_tail.val() {
            self.l[0].d.next = true;
            self.c[0].d.next = self.short_tail_base.val() + self.r_count.q.val();
            self.err[0].d.next = self.r_user.q.val();
            self.len[0].d.next = self.total_len.val() - self.strip_wide.val();
        }
        if self.h_take.val() {
            self.h_valid.d.next = false;
        }
        if self.r_valid.q.val() & !self.short_tail.val() {
            self.h_valid.d.next = true;
            self.h_data.d.next = self.r_data.q.val();
            self.h_count.d.next = self.r_count.q.val();
            self.h_last.d.next = self.r_last.q.val();
            self.h_err.d.next = self.r_user.q.val();
            self.h_runt.d.next = self.first.val()
                & ((self.r_count.q.val() < self.min_frame.val())
                    | (self.fcs_enable.val() & (self.r_count.q.val() < self.min_frame_fcs.val())));
            self.h_len.d.next = self.total_len.val() - self.strip_wide.val();
            if self.r_last.q.val() {
                if self.r_count.q.val() > self.strip.val() {
                    self.h_count.d.next = self.r_count.q.val() - self.strip.val();
                } else {
                    self.h_count.d.next = self.one7.val();
                }
            }
        }

        // The FCS verdict of the frame whose raw last beat arrived 4 cycles ago: its last beat
        // left the hold register 1 cycle after (now in stage 2) or, after a dropped tail, in
        // the same cycle (now in stage 3).
        self.fcs_now_bad.next = self.fcs_enable.val() & !self.crc.out_ok.val();
        if self.crc.out_valid.val() {
            if self.l[2].q.val() & self.v[2].q.val() {
                self.fcs_bad[3].d.next = self.fcs_now_bad.val();
            } else {
                self.fcs_bad[4].d.next = self.fcs_now_bad.val();
            }
        }

        self.out_valid.next = self.v[4].q.val();
        self.out_data.next = self.d[4].q.val();
        self.out_count.next = self.c[4].q.val();
        self.last_out.next = self.v[4].q.val() & self.l[4].q.val();
        self.out_last.next = self.last_out.val();
        self.out_user.next = self.last_out.val()
            & (self.err[4].q.val() | self.runt[4].q.val() | self.fcs_bad[4].q.val());
        self.out_runt.next = self.last_out.val() & self.runt[4].q.val();
        self.out_bad_fcs.next = self.last_out.val() & self.fcs_bad[4].q.val();
        self.out_len.next = self.len[4].q.val();
    }
}
