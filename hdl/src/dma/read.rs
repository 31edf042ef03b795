//! DMA read engine: commands (host address, length) in; AXI4 read bursts out; the data back as
//! a stream with each command's byte 0 in byte 0 of a beat, `out_last` on its last beat.
//!
//! Bursts are split as the write engine splits them (at most 64 beats, never across 4 KiB) and
//! come back in order (one AXI ID). The engine remembers each command's offset and beat counts
//! in a small queue so the returning beats are realigned: output beat j is the top of memory
//! beat j and the bottom of memory beat j + 1; when the command's last bytes sit in its last
//! memory beat alone, one more output beat follows without new input (a cycle's bubble; an
//! aligned command passes its beats straight through and has none). Read data is taken only
//! when the output can take it, so the consumer's backpressure reaches the slave (RREADY).
//!
//! Contract: `cmd_len` is 1..=8192. `out_error` (with `out_last`) says a read response of the
//! command was not OKAY; its data must not be used.

use crate::ram_fifo::RamFifo;
use crate::stream::c;
use rust_hdl::prelude::*;

const MAX_BURST: u64 = 64;
/// Commands whose data has not fully come back.
const PLAN_PTR: usize = 6;
const PLAN_ADDR: usize = 5;

crate::pack_word! { lsb_first ReadBeatToByte: 64 { zero: 6, beat: 58 } }

crate::hdl_block! {
    pub struct DmaRead {
        pub clock: Signal<In, Clock>,
        pub cmd_valid: Signal<In, Bit>,
        pub cmd_ready: Signal<Out, Bit>,
        pub cmd_addr: Signal<In, Bits<64>>,
        pub cmd_len: Signal<In, Bits<16>>,
        /// AXI4 read address channel (INCR bursts of 64-byte beats; ARSIZE = 6, ARBURST = 1,
        /// ARID = 0 are constants of the shell).
        pub arvalid: Signal<Out, Bit>,
        pub arready: Signal<In, Bit>,
        pub araddr: Signal<Out, Bits<64>>,
        pub arlen: Signal<Out, Bits<8>>,
        pub rvalid: Signal<In, Bit>,
        pub rready: Signal<Out, Bit>,
        pub rdata: Signal<In, Bits<512>>,
        pub rresp: Signal<In, Bits<2>>,
        pub out_valid: Signal<Out, Bit>,
        pub out_ready: Signal<In, Bit>,
        pub out_data: Signal<Out, Bits<512>>,
        pub out_last: Signal<Out, Bit>,
        pub out_error: Signal<Out, Bit>,

        /// Per command: shift in bits (A), memory beats (B), output beats (C).
        plans: RamFifo<PLAN_PTR, PLAN_ADDR, 10, 8, 8>,
        ar_bytes: ReadBeatToByte,
        zero6: Constant<Bits<6>> = c::<6>(0),
        zero8: Constant<Bits<8>> = c::<8>(0),
        zero10: Constant<Bits<10>> = c::<10>(0),
        one8: Constant<Bits<8>> = c::<8>(1),
        one_ptr: Constant<Bits<PLAN_PTR>> = c::<PLAN_PTR>(1),
        capacity: Constant<Bits<PLAN_PTR>> = c::<PLAN_PTR>(1 << PLAN_ADDR),
        beat_mask16: Constant<Bits<16>> = c::<16>(63),
        max_burst: Constant<Bits<8>> = c::<8>(MAX_BURST),
        burst_mask: Constant<Bits<8>> = c::<8>(MAX_BURST - 1),
        boundary_mask58: Constant<Bits<58>> = c::<58>(MAX_BURST - 1),
        one58: Constant<Bits<58>> = c::<58>(1),
        word_bits: Constant<Bits<10>> = c::<10>(512),
        okay: Constant<Bits<2>> = c::<2>(0),
        zero512: Constant<Bits<512>> = Constant::new(Bits::default()),

        // Address side.
        ar_busy: DFF<Bit>,
        ar_beat_addr: DFF<Bits<58>>,
        ar_left: DFF<Bits<8>>,
        plan_tail: DFF<Bits<PLAN_PTR>>,
        // Data side: the command at the head of the plan queue.
        r_k: DFF<Bits<8>>,
        r_j: DFF<Bits<8>>,
        flush: DFF<Bit>,
        prev: DFF<Bits<512>>,
        error: DFF<Bit>,
        o_valid: DFF<Bit>,
        o_data: DFF<Bits<512>>,
        o_last: DFF<Bit>,
        o_error: DFF<Bit>,

        offset: Signal<Local, Bits<16>>,
        span: Signal<Local, Bits<16>>,
        in_span: Signal<Local, Bits<16>>,
        plan_room: Signal<Local, Bit>,
        to_boundary: Signal<Local, Bits<8>>,
        burst: Signal<Local, Bits<8>>,
        ar_fire: Signal<Local, Bit>,
        ar_final: Signal<Local, Bit>,
        accept: Signal<Local, Bit>,
        out_free: Signal<Local, Bit>,
        active: Signal<Local, Bit>,
        shift: Signal<Local, Bits<10>>,
        beats: Signal<Local, Bits<8>>,
        out_beats: Signal<Local, Bits<8>>,
        r_fire: Signal<Local, Bit>,
        r_error: Signal<Local, Bit>,
        aligned: Signal<Local, Bit>,
        emit: Signal<Local, Bit>,
        emit_data: Signal<Local, Bits<512>>,
        emit_last: Signal<Local, Bit>,
        finish: Signal<Local, Bit>,
    }
}

impl Logic for DmaRead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ar_busy, ar_beat_addr, ar_left, plan_tail, r_k, r_j, flush, prev, error, o_valid, o_data,
            o_last, o_error
        );
        self.plans.clock.next = self.clock.val();

        // Commands: planned into the queue, then their bursts announced.
        self.offset.next = self.cmd_addr.val().get_bits::<16>(0) & self.beat_mask16.val();
        self.span.next = (self.offset.val() + self.cmd_len.val() + self.beat_mask16.val()) >> 6;
        self.in_span.next = (self.cmd_len.val() + self.beat_mask16.val()) >> 6;
        self.plan_room.next = (self.plan_tail.q.val() - self.plans.head.val()) < self.capacity.val();
        self.cmd_ready.next = !self.ar_busy.q.val() & self.plan_room.val();
        self.accept.next = self.cmd_valid.val() & self.cmd_ready.val();
        self.plans.wr_en.next = self.accept.val();
        self.plans.wr_addr.next = self.plan_tail.q.val().get_bits::<PLAN_ADDR>(0);
        self.plans.wr_a.next = self.offset.val().get_bits::<10>(0) << 3;
        self.plans.wr_b.next = self.span.val().get_bits::<8>(0);
        self.plans.wr_c.next = self.in_span.val().get_bits::<8>(0);
        self.plans.tail.next = self.plan_tail.q.val();
        if self.accept.val() {
            self.plan_tail.d.next = self.plan_tail.q.val() + self.one_ptr.val();
            self.ar_busy.d.next = true;
            self.ar_beat_addr.d.next = self.cmd_addr.val().get_bits::<58>(6);
            self.ar_left.d.next = self.span.val().get_bits::<8>(0);
        }
        self.to_boundary.next = self.max_burst.val() - (self.ar_beat_addr.q.val().get_bits::<8>(0) & self.burst_mask.val());
        self.burst.next = self.ar_left.q.val();
        if self.ar_left.q.val() > self.to_boundary.val() {
            self.burst.next = self.to_boundary.val();
        }
        self.ar_final.next = self.ar_left.q.val() == self.burst.val();
        self.arvalid.next = self.ar_busy.q.val();
        self.ar_bytes.zero.next = self.zero6.val();
        self.ar_bytes.beat.next = self.ar_beat_addr.q.val();
        self.araddr.next = self.ar_bytes.word.val();
        self.arlen.next = self.burst.val() - self.one8.val();
        self.ar_fire.next = self.arvalid.val() & self.arready.val();
        if self.ar_fire.val() {
            self.ar_beat_addr.d.next = (self.ar_beat_addr.q.val() | self.boundary_mask58.val()) + self.one58.val();
            self.ar_left.d.next = self.ar_left.q.val() - self.burst.val();
            if self.ar_final.val() {
                self.ar_busy.d.next = false;
            }
        }

        // Data: realign beats of the command at the head of the plan queue.
        self.active.next = self.plans.out_valid.val();
        self.shift.next = self.plans.out_a.val();
        self.beats.next = self.plans.out_b.val();
        self.out_beats.next = self.plans.out_c.val();
        self.out_free.next = !self.o_valid.q.val() | self.out_ready.val();
        self.rready.next = self.active.val() & !self.flush.q.val() & self.out_free.val() & (self.r_k.q.val() < self.beats.val());
        self.r_fire.next = self.rvalid.val() & self.rready.val();
        self.r_error.next = self.error.q.val() | (self.r_fire.val() & (self.rresp.val() != self.okay.val()));
        // Output beat j = top of memory beat j (prev) and bottom of memory beat j + 1 (rdata);
        // an aligned command passes its beats straight through.
        self.aligned.next = self.shift.val() == self.zero10.val();
        self.emit.next = (self.r_fire.val() & ((self.r_k.q.val() != self.zero8.val()) | self.aligned.val()))
            | (self.flush.q.val() & self.out_free.val());
        self.emit_data.next = self.prev.q.val() >> self.shift.val();
        if !self.flush.q.val() {
            self.emit_data.next = (self.prev.q.val() >> self.shift.val()) | (self.rdata.val() << (self.word_bits.val() - self.shift.val()));
        }
        if self.aligned.val() {
            self.emit_data.next = self.rdata.val();
        }
        self.emit_last.next = self.r_j.q.val() == self.out_beats.val() - self.one8.val();
        if self.r_fire.val() {
            self.prev.d.next = self.rdata.val();
            self.r_k.d.next = self.r_k.q.val() + self.one8.val();
            self.error.d.next = self.r_error.val();
            // The last memory beat: one more output beat needs it alone when the beat counts
            // are equal.
            if (self.r_k.q.val() == self.beats.val() - self.one8.val())
                & (self.beats.val() == self.out_beats.val())
                & !self.aligned.val()
            {
                self.flush.d.next = true;
            }
        }
        if self.emit.val() {
            self.r_j.d.next = self.r_j.q.val() + self.one8.val();
        }
        self.finish.next = self.emit.val() & self.emit_last.val();
        self.plans.out_ready.next = self.finish.val();
        if self.finish.val() {
            self.r_k.d.next = self.zero8.val();
            self.r_j.d.next = self.zero8.val();
            self.flush.d.next = false;
            self.error.d.next = false;
            self.prev.d.next = self.zero512.val();
        }
        if self.out_free.val() {
            self.o_valid.d.next = self.emit.val();
            self.o_data.d.next = self.emit_data.val();
            self.o_last.d.next = self.emit_last.val();
            self.o_error.d.next = self.r_error.val();
        }
        self.out_valid.next = self.o_valid.q.val();
        self.out_data.next = self.o_data.q.val();
        self.out_last.next = self.o_last.q.val();
        self.out_error.next = self.o_error.q.val() & self.o_last.q.val();
    }
}
