//! Receive payload realigner: cuts the headers off a frame and shifts its payload to byte 0.
//!
//! The payload starts at byte `P` of the frame (54..=106: Ethernet, IP, UDP, BTH and extended
//! headers), so output beat `k` takes the bytes from `P mod 64` on of input beat `k + P div 64`
//! and the rest from the next input beat. The header parser's result (`P` as `in_beat1` and
//! the two shifts, `in_len`, `in_end`, `in_emit`) arrives with the frame's header-complete beat (`in_hc`: its second
//! beat, or the first of a one-beat frame) and is latched for the rest of the frame.
//!
//! The pipeline cannot stall (a MAC has no backpressure), yet at a frame's end two output
//! beats can become complete in one cycle: the one that needed this last input beat, and the
//! final short one that lies entirely inside it. They go into a 4-entry FIFO that drains one
//! beat per cycle; since a frame always has fewer payload bytes than it occupies by at least
//! its 54 header bytes, at most two entries are ever waiting (`overflow` latches if that
//! assumption is ever broken, and the tests check it stays low).
//!
//! Each frame with `in_emit` produces exactly one payload packet, closed by `out_last`. If the
//! frame ends before its payload does (a length lie), the packet ends there with `out_user`
//! set; the receive pipeline's verdict drops such frames anyway.

use crate::stream::{c, numbers, KeepFromCount, BEAT_BYTES};
use rust_hdl::prelude::*;

const FIFO: usize = 4;


hdl_block! {
    pub struct RxPayloadAlign {
        pub clock: Signal<In, Clock>,
        pub in_valid: Signal<In, Bit>,
        pub in_data: Signal<In, Bits<512>>,
        pub in_count: Signal<In, Bits<7>>,
        pub in_last: Signal<In, Bit>,
        pub in_hc: Signal<In, Bit>,
        /// The payload starts in the frame's second beat.
        pub in_beat1: Signal<In, Bit>,
        /// Bit shifts that bring the payload to byte 0: right for the beat it starts in, left
        /// for the next.
        pub in_shift_right: Signal<In, Bits<10>>,
        pub in_shift_left: Signal<In, Bits<10>>,
        pub in_len: Signal<In, Bits<17>>,
        /// Frame byte just past the payload.
        pub in_end: Signal<In, Bits<17>>,
        pub in_emit: Signal<In, Bit>,

        pub out_valid: Signal<Out, Bit>,
        pub out_data: Signal<Out, Bits<512>>,
        pub out_keep: Signal<Out, Bits<64>>,
        pub out_last: Signal<Out, Bit>,
        pub out_user: Signal<Out, Bit>,
        /// Sticky: the output FIFO overflowed (never expected).
        pub overflow: Signal<Out, Bit>,

        beat17: Constant<Bits<17>> = c::<17>(BEAT_BYTES as u64),
        zero17: Constant<Bits<17>> = c::<17>(0),
        beat7: Constant<Bits<7>> = c::<7>(BEAT_BYTES as u64),
        one7: Constant<Bits<7>> = c::<7>(1),
        beat_id: [Constant<Bits<2>>; 4] = numbers::<2, 4>(),
        slot: [Constant<Bits<2>>; FIFO] = numbers::<2, FIFO>(),
        keep: KeepFromCount,
        fill: [Constant<Bits<3>>; 3] = numbers::<3, 3>(),
        depth: Constant<Bits<3>> = c::<3>(FIFO as u64),
        zero512: Constant<Bits<512>> = Constant::new(Bits::default()),
        byte_shift_r: Constant<Bits<10>> = c::<10>(0x1F8),
        byte_shift_l: Constant<Bits<10>> = c::<10>(0x3F8),

        in_frame: DFF<Bit>,
        beat: DFF<Bits<2>>,
        base: DFF<Bits<17>>,
        prev: DFF<Bits<512>>,
        ctx_shift: DFF<Bits<10>>,
        ctx_shift_l: DFF<Bits<10>>,
        ctx_j: DFF<Bit>,
        ctx_emit: DFF<Bit>,
        ctx_need: DFF<Bits<17>>,
        remaining: DFF<Bits<17>>,
        e_data: [DFF<Bits<512>>; FIFO],
        e_count: [DFF<Bits<7>>; FIFO],
        e_last: [DFF<Bit>; FIFO],
        e_user: [DFF<Bit>; FIFO],
        w_push0: DFF<Bit>,
        w_push1: DFF<Bit>,
        w_d0: DFF<Bits<512>>,
        w_c0: DFF<Bits<7>>,
        w_l0: DFF<Bit>,
        w_u0: DFF<Bit>,
        w_d1: DFF<Bits<512>>,
        w_c1: DFF<Bits<7>>,
        w_u1: DFF<Bit>,
        wp: DFF<Bits<2>>,
        rp: DFF<Bits<2>>,
        fill_level: DFF<Bits<3>>,
        overflowed: DFF<Bit>,

        first: Signal<Local, Bit>,
        b: Signal<Local, Bits<2>>,
        shift: Signal<Local, Bits<10>>,
        shift_l: Signal<Local, Bits<10>>,
        j: Signal<Local, Bit>,
        emit: Signal<Local, Bit>,
        need: Signal<Local, Bits<17>>,
        rem: Signal<Local, Bits<17>>,
        frame_base: Signal<Local, Bits<17>>,
        active: Signal<Local, Bit>,
        do_a: Signal<Local, Bit>,
        a_data: Signal<Local, Bits<512>>,
        a_count: Signal<Local, Bits<7>>,
        rem_a: Signal<Local, Bits<17>>,
        do_b: Signal<Local, Bit>,
        b_data: Signal<Local, Bits<512>>,
        b_count: Signal<Local, Bits<7>>,
        do_c: Signal<Local, Bit>,
        before_payload: Signal<Local, Bit>,
        to_end: Signal<Local, Bits<17>>,
        truncated: Signal<Local, Bit>,
        a_last: Signal<Local, Bit>,
        push0: Signal<Local, Bit>,
        push1: Signal<Local, Bit>,
        d0: Signal<Local, Bits<512>>,
        c0: Signal<Local, Bits<7>>,
        l0: Signal<Local, Bit>,
        u0: Signal<Local, Bit>,
        wp1: Signal<Local, Bits<2>>,
        pushes: Signal<Local, Bits<3>>,
        level: Signal<Local, Bits<3>>,
        head_count: Signal<Local, Bits<7>>,
    }
}

impl Logic for RxPayloadAlign {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_frame, beat, base, prev, ctx_shift, ctx_shift_l, ctx_j, ctx_emit, ctx_need, remaining, w_push0, w_push1, w_d0, w_c0, w_l0, w_u0, w_d1, w_c1, w_u1, wp, rp,
            fill_level, overflowed
        );
        for i in 0..FIFO {
            self.e_data[i].clock.next = self.clock.val();
            self.e_count[i].clock.next = self.clock.val();
            self.e_last[i].clock.next = self.clock.val();
            self.e_user[i].clock.next = self.clock.val();
            self.e_data[i].d.next = self.e_data[i].q.val();
            self.e_count[i].d.next = self.e_count[i].q.val();
            self.e_last[i].d.next = self.e_last[i].q.val();
            self.e_user[i].d.next = self.e_user[i].q.val();
        }

        // Frame context: from the parser on the header-complete beat, latched after.
        self.first.next = !self.in_frame.q.val();
        self.b.next = self.beat.q.val();
        self.frame_base.next = self.base.q.val();
        if self.first.val() {
            self.b.next = self.beat_id[0].val();
            self.frame_base.next = self.zero17.val();
        }
        self.shift.next = self.ctx_shift.q.val();
        self.shift_l.next = self.ctx_shift_l.q.val();
        self.j.next = self.ctx_j.q.val();
        self.emit.next = self.ctx_emit.q.val() & !self.first.val();
        self.need.next = self.ctx_need.q.val();
        self.rem.next = self.remaining.q.val();
        if self.in_hc.val() {
            self.shift.next = self.in_shift_right.val();
            self.shift_l.next = self.in_shift_left.val();
            self.j.next = self.in_beat1.val();
            self.emit.next = self.in_emit.val();
            self.need.next = self.in_end.val();
            self.rem.next = self.in_len.val();
        }
        self.active.next = self.in_valid.val() & self.emit.val() & (self.rem.val() != self.zero17.val());

        // A: the output beat completed by this input beat (needs the previous one).
        self.do_a.next = self.active.val()
            & (((self.b.val() == self.beat_id[1].val()) & !self.j.val()) | (self.b.val() == self.beat_id[2].val())
                | (self.b.val() == self.beat_id[3].val()));
        // Shifts are whole bytes: masking the amounts tells synthesis so (6 and 7 mux levels).
        self.a_data.next = (self.prev.q.val() >> (self.shift.val() & self.byte_shift_r.val()))
            | (self.in_data.val() << (self.shift_l.val() & self.byte_shift_l.val()));
        self.a_count.next = self.beat7.val();
        if self.rem.val() < self.beat17.val() {
            self.a_count.next = self.rem.val().get_bits::<7>(0);
        }
        self.rem_a.next = self.rem.val();
        if self.do_a.val() {
            self.rem_a.next = self.rem.val() - self.beat17.val();
            if self.rem.val() < self.beat17.val() {
                self.rem_a.next = self.zero17.val();
            }
        }
        // B: at the frame's end, the final beat lying inside this input beat.
        // C: the frame ended before its payload began (second beat never came).
        self.before_payload.next = self.j.val() & (self.b.val() == self.beat_id[0].val());
        self.do_b.next = self.active.val()
            & self.in_last.val()
            & (self.rem_a.val() != self.zero17.val())
            & !self.before_payload.val();
        self.do_c.next = self.active.val() & self.in_last.val() & self.before_payload.val();
        self.b_data.next = self.in_data.val() >> (self.shift.val() & self.byte_shift_r.val());
        self.b_count.next = self.beat7.val();
        if self.rem_a.val() < self.beat17.val() {
            self.b_count.next = self.rem_a.val().get_bits::<7>(0);
        }
        self.to_end.next = self.need.val() - self.frame_base.val();
        self.truncated.next = self.in_last.val()
            & (self.need.val() > self.frame_base.val())
            & ((self.to_end.val() > self.beat17.val()) | (self.to_end.val().get_bits::<7>(0) > self.in_count.val()));
        self.a_last.next = self.rem_a.val() == self.zero17.val();

        // Into the FIFO: A then B (or the lone truncation marker C).
        self.push0.next = self.do_a.val() | self.do_b.val() | self.do_c.val();
        self.push1.next = self.do_a.val() & self.do_b.val();
        self.d0.next = self.a_data.val();
        self.c0.next = self.a_count.val();
        self.l0.next = self.a_last.val();
        self.u0.next = self.a_last.val() & self.truncated.val();
        if !self.do_a.val() {
            self.d0.next = self.b_data.val();
            self.c0.next = self.b_count.val();
            self.l0.next = true;
            self.u0.next = self.truncated.val();
        }
        if self.do_c.val() {
            self.d0.next = self.zero512.val();
            self.c0.next = self.one7.val();
            self.u0.next = true;
        }
        // Registered between the shifters and the FIFO's write port.
        self.w_push0.d.next = self.push0.val();
        self.w_push1.d.next = self.push1.val();
        self.w_d0.d.next = self.d0.val();
        self.w_c0.d.next = self.c0.val();
        self.w_l0.d.next = self.l0.val();
        self.w_u0.d.next = self.u0.val();
        self.w_d1.d.next = self.b_data.val();
        self.w_c1.d.next = self.b_count.val();
        self.w_u1.d.next = self.truncated.val();
        self.wp1.next = self.wp.q.val() + self.slot[1].val();
        for i in 0..FIFO {
            if self.w_push0.q.val() & (self.wp.q.val() == self.slot[i].val()) {
                self.e_data[i].d.next = self.w_d0.q.val();
                self.e_count[i].d.next = self.w_c0.q.val();
                self.e_last[i].d.next = self.w_l0.q.val();
                self.e_user[i].d.next = self.w_u0.q.val();
            }
            if self.w_push1.q.val() & (self.wp1.val() == self.slot[i].val()) {
                self.e_data[i].d.next = self.w_d1.q.val();
                self.e_count[i].d.next = self.w_c1.q.val();
                self.e_last[i].d.next = true;
                self.e_user[i].d.next = self.w_u1.q.val();
            }
        }
        self.pushes.next = self.fill[0].val();
        if self.w_push0.q.val() {
            self.pushes.next = self.fill[1].val();
        }
        if self.w_push1.q.val() {
            self.pushes.next = self.fill[2].val();
        }
        self.wp.d.next = self.wp.q.val() + self.pushes.val().get_bits::<2>(0);

        // Out of the FIFO: one beat per cycle whenever it holds one.
        self.out_valid.next = self.fill_level.q.val() != self.fill[0].val();
        self.out_data.next = self.e_data[0].q.val();
        self.head_count.next = self.e_count[0].q.val();
        self.out_last.next = self.e_last[0].q.val();
        self.out_user.next = self.e_user[0].q.val();
        for i in 1..FIFO {
            if self.rp.q.val() == self.slot[i].val() {
                self.out_data.next = self.e_data[i].q.val();
                self.head_count.next = self.e_count[i].q.val();
                self.out_last.next = self.e_last[i].q.val();
                self.out_user.next = self.e_user[i].q.val();
            }
        }
        self.keep.count.next = self.head_count.val();
        self.out_keep.next = self.keep.tkeep.val();
        self.level.next = self.fill_level.q.val() + self.pushes.val();
        if self.out_valid.val() {
            self.rp.d.next = self.rp.q.val() + self.slot[1].val();
            self.level.next = self.fill_level.q.val() + self.pushes.val() - self.fill[1].val();
        }
        self.fill_level.d.next = self.level.val();
        if self.level.val() > self.depth.val() {
            self.overflowed.d.next = true;
        }
        self.overflow.next = self.overflowed.q.val();

        // Frame bookkeeping.
        if self.in_valid.val() {
            self.in_frame.d.next = !self.in_last.val();
            self.prev.d.next = self.in_data.val();
            self.base.d.next = self.frame_base.val() + self.beat17.val();
            self.beat.d.next = self.b.val();
            if self.b.val() != self.beat_id[3].val() {
                self.beat.d.next = self.b.val() + self.beat_id[1].val();
            }
            self.remaining.d.next = self.rem_a.val();
            if self.do_b.val() | self.do_c.val() {
                self.remaining.d.next = self.zero17.val();
            }
            self.ctx_shift.d.next = self.shift.val();
            self.ctx_shift_l.d.next = self.shift_l.val();
            self.ctx_j.d.next = self.j.val();
            self.ctx_emit.d.next = self.emit.val();
            self.ctx_need.d.next = self.need.val();
        }
    }
}
