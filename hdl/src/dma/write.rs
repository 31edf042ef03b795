//! DMA write engine: commands (host address, length) and their data (a stream with each
//! command's byte 0 in byte 0 of a beat) in; AXI4 write bursts out; one `done` per command,
//! in order, once every burst of it has its write response.
//!
//! The data is shifted to the address's offset in its 64-byte beat as it goes out (each beat
//! takes the top of the previous input beat and the bottom of the current one), with write
//! strobes on the first and last beat covering exactly the command's bytes: nothing outside
//! [addr, addr + len) is written. Bursts never cross a 4 KiB boundary (AXI4) and carry at most
//! 64 beats. The address and data channels run independently, so the next command's bursts
//! are announced while this one's data flows, and data beats of consecutive commands go back
//! to back. Write responses come back in order (one AXI ID); the engine keeps a bit per burst
//! in flight saying whether it ends a command, at most 128 bursts in flight.
//!
//! Contract: `cmd_len` is 1..=8192 (a zero-length command is taken and produces nothing, not
//! even `done`); the data stream carries ceil(len / 64) beats per command, bytes past the
//! length ignored.

use crate::stream::{c, BEAT_BYTES};
use rust_hdl::prelude::*;

/// Largest burst: 64 beats of 64 bytes = 4 KiB, which also never crosses a 4 KiB boundary
/// when it starts on one.
const MAX_BURST: u64 = 64;
/// Bursts in flight (announced, write response not yet back).
const MAX_IN_FLIGHT: u64 = 128;

// Widening without lint warnings (see `pack_word!`).
crate::pack_word! { lsb_first BeatToByte: 64 { zero: 6, beat: 58 } }

crate::hdl_block! {
    pub struct DmaWrite {
        pub clock: Signal<In, Clock>,
        pub cmd_valid: Signal<In, Bit>,
        pub cmd_ready: Signal<Out, Bit>,
        pub cmd_addr: Signal<In, Bits<64>>,
        pub cmd_len: Signal<In, Bits<16>>,
        pub in_valid: Signal<In, Bit>,
        pub in_ready: Signal<Out, Bit>,
        pub in_data: Signal<In, Bits<512>>,
        /// AXI4 write address channel (INCR bursts of 64-byte beats; AWSIZE = 6, AWBURST = 1
        /// and AWID = 0 are constants of the shell).
        pub awvalid: Signal<Out, Bit>,
        pub awready: Signal<In, Bit>,
        pub awaddr: Signal<Out, Bits<64>>,
        pub awlen: Signal<Out, Bits<8>>,
        pub wvalid: Signal<Out, Bit>,
        pub wready: Signal<In, Bit>,
        pub wdata: Signal<Out, Bits<512>>,
        pub wstrb: Signal<Out, Bits<64>>,
        pub wlast: Signal<Out, Bit>,
        pub bvalid: Signal<In, Bit>,
        pub bready: Signal<Out, Bit>,
        pub bresp: Signal<In, Bits<2>>,
        /// Pulses once per command, in command order, when all its data is written.
        pub done: Signal<Out, Bit>,
        /// With `done`: a write response of the command was not OKAY.
        pub done_error: Signal<Out, Bit>,

        lane: [Constant<Bits<64>>; 64] = std::array::from_fn(|i| c::<64>(1 << i)),
        zero64: Constant<Bits<64>> = c::<64>(0),
        zero512: Constant<Bits<512>> = Constant::new(Bits::default()),
        zero8: Constant<Bits<8>> = c::<8>(0),
        one8: Constant<Bits<8>> = c::<8>(1),
        one16: Constant<Bits<16>> = c::<16>(1),
        beat_mask16: Constant<Bits<16>> = c::<16>(BEAT_BYTES as u64 - 1),
        beat_round16: Constant<Bits<16>> = c::<16>(BEAT_BYTES as u64 - 1),
        max_burst: Constant<Bits<8>> = c::<8>(MAX_BURST),
        burst_mask: Constant<Bits<8>> = c::<8>(MAX_BURST - 1),
        max_in_flight: Constant<Bits<8>> = c::<8>(MAX_IN_FLIGHT),
        one128: Constant<Bits<128>> = c::<128>(1),
        word_bits: Constant<Bits<10>> = c::<10>(512),
        okay: Constant<Bits<2>> = c::<2>(0),
        zero6: Constant<Bits<6>> = c::<6>(0),
        aw_bytes: BeatToByte,
        boundary_mask58: Constant<Bits<58>> = c::<58>(MAX_BURST - 1),
        one58: Constant<Bits<58>> = c::<58>(1),

        // The accepted command, planned: first beat address, beats in memory and in the input,
        // the shift, and the strobes of the first and last beat.
        p_valid: DFF<Bit>,
        p_aw_taken: DFF<Bit>,
        p_w_taken: DFF<Bit>,
        p_beat_addr: DFF<Bits<58>>,
        p_beats: DFF<Bits<8>>,
        p_in_beats: DFF<Bits<8>>,
        p_shift: DFF<Bits<10>>,
        p_first_strb: DFF<Bits<64>>,
        p_last_strb: DFF<Bits<64>>,
        // Address channel.
        aw_busy: DFF<Bit>,
        aw_beat_addr: DFF<Bits<58>>,
        aw_left: DFF<Bits<8>>,
        // Data channel.
        w_busy: DFF<Bit>,
        w_index: DFF<Bits<8>>,
        w_addr6: DFF<Bits<6>>,
        w_beats: DFF<Bits<8>>,
        w_in_beats: DFF<Bits<8>>,
        w_shift: DFF<Bits<10>>,
        w_first_strb: DFF<Bits<64>>,
        w_last_strb: DFF<Bits<64>>,
        prev: DFF<Bits<512>>,
        // Responses: bit i = burst i in flight ends a command.
        ends: DFF<Bits<128>>,
        in_flight: DFF<Bits<8>>,
        error: DFF<Bit>,

        offset: Signal<Local, Bits<16>>,
        span: Signal<Local, Bits<16>>,
        in_span: Signal<Local, Bits<16>>,
        last_lane: Signal<Local, Bits<16>>,
        first_strb: Signal<Local, Bits<64>>,
        last_strb: Signal<Local, Bits<64>>,
        aw_take: Signal<Local, Bit>,
        w_take: Signal<Local, Bit>,
        to_boundary: Signal<Local, Bits<8>>,
        burst: Signal<Local, Bits<8>>,
        aw_fire: Signal<Local, Bit>,
        aw_final: Signal<Local, Bit>,
        need_in: Signal<Local, Bit>,
        w_fire: Signal<Local, Bit>,
        w_final: Signal<Local, Bit>,
        cur: Signal<Local, Bits<512>>,
        strb: Signal<Local, Bits<64>>,
        pushed: Signal<Local, Bits<128>>,
        b_fire: Signal<Local, Bit>,
    }
}

impl Logic for DmaWrite {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, p_valid, p_aw_taken, p_w_taken, p_beat_addr, p_beats, p_in_beats, p_shift, p_first_strb,
            p_last_strb, aw_busy, aw_beat_addr, aw_left, w_busy, w_index, w_addr6, w_beats, w_in_beats, w_shift,
            w_first_strb, w_last_strb, prev, ends, in_flight, error
        );

        // Address channel: one burst per handshake, up to the next 4 KiB boundary.
        self.to_boundary.next = self.max_burst.val() - (self.aw_beat_addr.q.val().get_bits::<8>(0) & self.burst_mask.val());
        self.burst.next = self.aw_left.q.val();
        if self.aw_left.q.val() > self.to_boundary.val() {
            self.burst.next = self.to_boundary.val();
        }
        self.aw_final.next = self.aw_left.q.val() == self.burst.val();
        self.awvalid.next = self.aw_busy.q.val() & (self.in_flight.q.val() < self.max_in_flight.val());
        self.aw_bytes.zero.next = self.zero6.val();
        self.aw_bytes.beat.next = self.aw_beat_addr.q.val();
        self.awaddr.next = self.aw_bytes.word.val();

        self.awlen.next = self.burst.val() - self.one8.val();
        self.aw_fire.next = self.awvalid.val() & self.awready.val();
        if self.aw_fire.val() {
            // A burst that is not the command's last ends on a 4 KiB boundary.
            self.aw_beat_addr.d.next = (self.aw_beat_addr.q.val() | self.boundary_mask58.val()) + self.one58.val();
            self.aw_left.d.next = self.aw_left.q.val() - self.burst.val();
            if self.aw_final.val() {
                self.aw_busy.d.next = false;
            }
        }

        // Data channel: memory beat j carries input beats j and j - 1, shifted to the offset.
        self.need_in.next = self.w_index.q.val() < self.w_in_beats.q.val();
        self.wvalid.next = self.w_busy.q.val() & (!self.need_in.val() | self.in_valid.val());
        self.in_ready.next = self.w_busy.q.val() & self.need_in.val() & self.wready.val();
        self.cur.next = self.zero512.val();
        if self.need_in.val() {
            self.cur.next = self.in_data.val();
        }
        self.wdata.next =
            (self.cur.val() << self.w_shift.q.val()) | (self.prev.q.val() >> (self.word_bits.val() - self.w_shift.q.val()));
        self.w_final.next = self.w_index.q.val() == self.w_beats.q.val() - self.one8.val();
        self.strb.next = !self.zero64.val();
        if self.w_index.q.val() == self.zero8.val() {
            self.strb.next = self.w_first_strb.q.val();
        }
        if self.w_final.val() {
            self.strb.next = self.strb.val() & self.w_last_strb.q.val();
        }
        self.wstrb.next = self.strb.val();
        self.wlast.next = self.w_final.val() | self.w_addr6.q.val().all();
        self.w_fire.next = self.wvalid.val() & self.wready.val();
        if self.w_fire.val() {
            self.w_index.d.next = self.w_index.q.val() + self.one8.val();
            self.w_addr6.d.next = self.w_addr6.q.val() + self.one8.val().get_bits::<6>(0);
            if self.need_in.val() {
                self.prev.d.next = self.in_data.val();
            }
            if self.w_final.val() {
                self.w_busy.d.next = false;
            }
        }

        // The planned command goes to each channel when it is free or finishing.
        self.aw_take.next = self.p_valid.q.val() & !self.p_aw_taken.q.val() & (!self.aw_busy.q.val() | (self.aw_fire.val() & self.aw_final.val()));
        self.w_take.next = self.p_valid.q.val() & !self.p_w_taken.q.val() & (!self.w_busy.q.val() | (self.w_fire.val() & self.w_final.val()));
        if self.aw_take.val() {
            self.p_aw_taken.d.next = true;
            self.aw_busy.d.next = self.p_beats.q.val() != self.zero8.val();
            self.aw_beat_addr.d.next = self.p_beat_addr.q.val();
            self.aw_left.d.next = self.p_beats.q.val();
        }
        if self.w_take.val() {
            self.p_w_taken.d.next = true;
            self.w_busy.d.next = self.p_beats.q.val() != self.zero8.val();
            self.w_index.d.next = self.zero8.val();
            self.w_addr6.d.next = self.p_beat_addr.q.val().get_bits::<6>(0);
            self.w_beats.d.next = self.p_beats.q.val();
            self.w_in_beats.d.next = self.p_in_beats.q.val();
            self.w_shift.d.next = self.p_shift.q.val();
            self.w_first_strb.d.next = self.p_first_strb.q.val();
            self.w_last_strb.d.next = self.p_last_strb.q.val();
            self.prev.d.next = self.zero512.val();
        }
        // The plan slot frees as its second channel takes it, so a command can follow at once.
        self.cmd_ready.next = !self.p_valid.q.val()
            | ((self.p_aw_taken.q.val() | self.aw_take.val()) & (self.p_w_taken.q.val() | self.w_take.val()));
        if self.cmd_ready.val() {
            self.p_valid.d.next = self.cmd_valid.val();
            self.p_aw_taken.d.next = false;
            self.p_w_taken.d.next = false;
        }
        self.offset.next = self.cmd_addr.val().get_bits::<16>(0) & self.beat_mask16.val();
        self.span.next = (self.offset.val() + self.cmd_len.val() + self.beat_round16.val()) >> 6;
        self.in_span.next = (self.cmd_len.val() + self.beat_round16.val()) >> 6;
        self.last_lane.next = (self.offset.val() + self.cmd_len.val() - self.one16.val()) & self.beat_mask16.val();
        self.first_strb.next = self.zero64.val();
        for i in 0..64 {
            if self.offset.val().index() <= i {
                self.first_strb.next = self.first_strb.val() | self.lane[i].val();
            }
        }
        self.last_strb.next = self.lane[0].val();
        for i in 1..64 {
            if self.last_lane.val().index() >= i {
                self.last_strb.next = self.last_strb.val() | self.lane[i].val();
            }
        }
        if self.cmd_ready.val() & self.cmd_valid.val() {
            self.p_beat_addr.d.next = self.cmd_addr.val().get_bits::<58>(6);
            self.p_beats.d.next = self.span.val().get_bits::<8>(0);
            self.p_in_beats.d.next = self.in_span.val().get_bits::<8>(0);
            self.p_shift.d.next = self.offset.val().get_bits::<10>(0) << 3;
            self.p_first_strb.d.next = self.first_strb.val();
            self.p_last_strb.d.next = self.last_strb.val();
        }

        // Responses, in order: pop a burst; it may end a command.
        self.bready.next = true;
        self.b_fire.next = self.bvalid.val();
        self.pushed.next = self.ends.q.val();
        if self.aw_fire.val() & self.aw_final.val() {
            self.pushed.next = self.ends.q.val() | (self.one128.val() << self.in_flight.q.val());
        }
        self.ends.d.next = self.pushed.val();
        if self.b_fire.val() {
            self.ends.d.next = self.pushed.val() >> 1;
        }
        if self.aw_fire.val() & !self.b_fire.val() {
            self.in_flight.d.next = self.in_flight.q.val() + self.one8.val();
        }
        if !self.aw_fire.val() & self.b_fire.val() {
            self.in_flight.d.next = self.in_flight.q.val() - self.one8.val();
        }
        self.done.next = self.b_fire.val() & self.ends.q.val().get_bit(0);
        self.done_error.next = self.error.q.val() | (self.bresp.val() != self.okay.val());
        if self.b_fire.val() {
            self.error.d.next = self.done_error.val() & !self.ends.q.val().get_bit(0);
        }
    }
}
