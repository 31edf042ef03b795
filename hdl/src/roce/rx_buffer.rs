//! Receive buffer: the commit point of the receive path, and its valid/ready outputs.
//!
//! The receive pipeline cannot stall and learns a frame's verdict only at its end (ICRC, FCS),
//! after the payload has streamed. This buffer writes each payload packet into block RAM
//! without making it readable, and each verdict's record into a record slot. Verdicts queue in
//! frame order (a short frame's verdict can overtake the tail of the previous frame's payload);
//! the oldest is decided once its payload packet, if it has one, has ended — which is always
//! before the next packet begins, so rewinding the write pointer only ever discards that
//! packet. Accepted frames are committed: payload readable, record slot marked kept. Anything
//! else is rewound and its slot skipped, so nothing of a dropped frame ever leaves. Accepted
//! frames that do not fit (payload RAM or record slots full) are dropped whole and reported on
//! `no_buffer`; `hazard` latches if a packet ever began before the previous one was decided.
//!
//! Outputs: a record channel (two 512-bit words, `rnic_spec::wire::rx::RECORD_WORD0/1`) and a
//! payload channel, both valid/ready, both in frame order: a consumer takes a record, then
//! `payload_len` bytes of payload (`out_rec_payload` says whether the frame has any).

use crate::ram_fifo::RamFifo;
use crate::stream::{c, numbers};
use rust_hdl::prelude::*;

/// Payload RAM: 2^9 beats (32 KiB), enough for several 4 KiB packets while the host is slow.
pub const PAYLOAD_BEATS_LOG2: usize = 9;
/// Record queue: 2^6 frames, so a burst of small packets waits while the transport engine
/// works through them.
pub const RECORDS_LOG2: usize = 6;
const RECORDS: usize = 1 << RECORDS_LOG2;
const REC_PTR: usize = RECORDS_LOG2 + 1;

hdl_block! {
    pub struct RxBuffer {
        pub clock: Signal<In, Clock>,
        pub pl_valid: Signal<In, Bit>,
        pub pl_data: Signal<In, Bits<512>>,
        pub pl_keep: Signal<In, Bits<64>>,
        pub pl_last: Signal<In, Bit>,
        /// The payload packet was cut short by its frame.
        pub pl_user: Signal<In, Bit>,
        /// A frame's verdict (one per frame, in frame order).
        pub rec_valid: Signal<In, Bit>,
        pub rec_accept: Signal<In, Bit>,
        pub rec_payload: Signal<In, Bit>,
        pub rec_word0: Signal<In, Bits<512>>,
        pub rec_word1: Signal<In, Bits<512>>,

        pub out_rec_valid: Signal<Out, Bit>,
        pub out_rec_ready: Signal<In, Bit>,
        pub out_rec_word0: Signal<Out, Bits<512>>,
        pub out_rec_word1: Signal<Out, Bits<512>>,
        pub out_pl_valid: Signal<Out, Bit>,
        pub out_pl_ready: Signal<In, Bit>,
        pub out_pl_data: Signal<Out, Bits<512>>,
        pub out_pl_keep: Signal<Out, Bits<64>>,
        pub out_pl_last: Signal<Out, Bit>,
        /// Pulses when an accepted frame is dropped for lack of room.
        pub no_buffer: Signal<Out, Bit>,
        /// Sticky: a payload packet began while the previous one was undecided, or the verdict
        /// queue overflowed (never expected).
        pub hazard: Signal<Out, Bit>,

        payload: RamFifo<10, 9, 512, 64, 1>,
        records: RamFifo<REC_PTR, RECORDS_LOG2, 512, 512, RECORDS_LOG2>,
        one10: Constant<Bits<10>> = c::<10>(1),
        depth10: Constant<Bits<10>> = c::<10>(1 << PAYLOAD_BEATS_LOG2),
        one_rec: Constant<Bits<REC_PTR>> = c::<REC_PTR>(1),
        rec_depth: Constant<Bits<REC_PTR>> = c::<REC_PTR>(1 << RECORDS_LOG2),
        bit1: Constant<Bits<1>> = c::<1>(1),
        bit0: Constant<Bits<1>> = c::<1>(0),
        slot_id: [Constant<Bits<RECORDS_LOG2>>; RECORDS] = numbers::<RECORDS_LOG2, RECORDS>(),
        q_zero: Constant<Bits<3>> = c::<3>(0),
        q_one: Constant<Bits<3>> = c::<3>(1),
        q_full: Constant<Bits<3>> = c::<3>(4),
        q_index: [Constant<Bits<2>>; 4] = numbers::<2, 4>(),

        /// Next payload write, and the committed end of the payload.
        wr_cur: DFF<Bits<10>>,
        wr_commit: DFF<Bits<10>>,
        /// Record slots: next to allocate, and decided up to.
        rec_alloc: DFF<Bits<REC_PTR>>,
        rec_decided: DFF<Bits<REC_PTR>>,
        /// Kept flag per record slot, set when its frame is committed.
        kept: [DFF<Bit>; RECORDS] = std::array::from_fn(|_| Default::default()),
        /// Verdicts waiting for a decision: accepted, has a payload packet, got a record slot.
        q_accept: [DFF<Bit>; 4],
        q_payload: [DFF<Bit>; 4],
        q_slot: [DFF<Bit>; 4],
        q_count: DFF<Bits<3>>,
        q_wp: DFF<Bits<2>>,
        q_rp: DFF<Bits<2>>,
        /// The current payload packet lost a beat for lack of room, or was cut short.
        spoiled: DFF<Bit>,
        /// A payload packet is being written / has ended and awaits its decision.
        in_packet: DFF<Bit>,
        packet_done: DFF<Bit>,
        dropped: DFF<Bit>,
        hazard_seen: DFF<Bit>,

        write: Signal<Local, Bit>,
        wr_next: Signal<Local, Bits<10>>,
        spoiled_now: Signal<Local, Bit>,
        payload_end: Signal<Local, Bit>,
        done_now: Signal<Local, Bit>,
        slot_free: Signal<Local, Bit>,
        decide: Signal<Local, Bit>,
        commit: Signal<Local, Bit>,
        head_accept: Signal<Local, Bit>,
        head_payload: Signal<Local, Bit>,
        head_slot: Signal<Local, Bit>,
        q_empty: Signal<Local, Bit>,
        pop: Signal<Local, Bit>,
        push: Signal<Local, Bit>,
        rec_alloc_now: Signal<Local, Bit>,
        head_kept: Signal<Local, Bit>,
    }
}

impl Logic for RxBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wr_cur, wr_commit, rec_alloc, rec_decided, q_count, q_wp, q_rp, spoiled, in_packet, packet_done,
            dropped, hazard_seen
        );
        for i in 0..RECORDS {
            self.kept[i].clock.next = self.clock.val();
            self.kept[i].d.next = self.kept[i].q.val();
        }
        for i in 0..4 {
            self.q_accept[i].clock.next = self.clock.val();
            self.q_payload[i].clock.next = self.clock.val();
            self.q_slot[i].clock.next = self.clock.val();
            self.q_accept[i].d.next = self.q_accept[i].q.val();
            self.q_payload[i].d.next = self.q_payload[i].q.val();
            self.q_slot[i].d.next = self.q_slot[i].q.val();
        }
        self.payload.clock.next = self.clock.val();
        self.records.clock.next = self.clock.val();

        // Payload beats go in as they come, while there is room.
        self.write.next = self.pl_valid.val() & ((self.wr_cur.q.val() - self.payload.head.val()) != self.depth10.val());
        self.payload.wr_en.next = self.write.val();
        self.payload.wr_addr.next = self.wr_cur.q.val().get_bits::<9>(0);
        self.payload.wr_a.next = self.pl_data.val();
        self.payload.wr_b.next = self.pl_keep.val();
        self.payload.wr_c.next = self.bit0.val();
        if self.pl_last.val() {
            self.payload.wr_c.next = self.bit1.val();
        }
        self.wr_next.next = self.wr_cur.q.val();
        if self.write.val() {
            self.wr_next.next = self.wr_cur.q.val() + self.one10.val();
        }
        self.spoiled_now.next = self.spoiled.q.val()
            | (self.pl_valid.val() & !self.write.val())
            | (self.pl_valid.val() & self.pl_last.val() & self.pl_user.val());
        self.payload_end.next = self.pl_valid.val() & self.pl_last.val();
        self.done_now.next = self.packet_done.q.val() | self.payload_end.val();
        if self.pl_valid.val() & !self.in_packet.q.val() & self.packet_done.q.val() {
            self.hazard_seen.d.next = true;
        }

        // Verdicts: a record slot if one is free, then into the queue.
        self.slot_free.next = (self.rec_alloc.q.val() - self.records.head.val()) != self.rec_depth.val();
        self.rec_alloc_now.next = self.rec_valid.val() & self.slot_free.val();
        self.records.wr_en.next = self.rec_alloc_now.val();
        self.records.wr_addr.next = self.rec_alloc.q.val().get_bits::<RECORDS_LOG2>(0);
        self.records.wr_a.next = self.rec_word0.val();
        self.records.wr_b.next = self.rec_word1.val();
        self.records.wr_c.next = self.rec_alloc.q.val().get_bits::<RECORDS_LOG2>(0);

        // The oldest verdict (or, with an empty queue, the arriving one) is decided once its
        // payload packet has ended. The queue is a ring: arrivals go in at the write index
        // whatever is decided, so its control stays shallow.
        self.q_empty.next = self.q_count.q.val() == self.q_zero.val();
        self.head_accept.next = self.q_accept[0].q.val();
        self.head_payload.next = self.q_payload[0].q.val();
        self.head_slot.next = self.q_slot[0].q.val();
        for i in 1..4 {
            if self.q_rp.q.val() == self.q_index[i].val() {
                self.head_accept.next = self.q_accept[i].q.val();
                self.head_payload.next = self.q_payload[i].q.val();
                self.head_slot.next = self.q_slot[i].q.val();
            }
        }
        if self.q_empty.val() {
            self.head_accept.next = self.rec_accept.val();
            self.head_payload.next = self.rec_payload.val();
            self.head_slot.next = self.slot_free.val();
        }
        self.decide.next = (!self.q_empty.val() | self.rec_valid.val()) & (!self.head_payload.val() | self.done_now.val());
        self.commit.next = self.decide.val()
            & self.head_accept.val()
            & self.head_slot.val()
            & !(self.head_payload.val() & self.spoiled_now.val());
        self.pop.next = self.decide.val() & !self.q_empty.val();
        self.push.next = self.rec_valid.val() & !(self.decide.val() & self.q_empty.val());
        for i in 0..4 {
            if self.push.val() & (self.q_wp.q.val() == self.q_index[i].val()) {
                self.q_accept[i].d.next = self.rec_accept.val();
                self.q_payload[i].d.next = self.rec_payload.val();
                self.q_slot[i].d.next = self.slot_free.val();
            }
        }
        if self.push.val() {
            self.q_wp.d.next = self.q_wp.q.val() + self.q_index[1].val();
        }
        if self.push.val() & (self.q_count.q.val() == self.q_full.val()) {
            self.hazard_seen.d.next = true;
        }
        if self.pop.val() {
            self.q_rp.d.next = self.q_rp.q.val() + self.q_index[1].val();
        }
        if self.push.val() & !self.pop.val() {
            self.q_count.d.next = self.q_count.q.val() + self.q_one.val();
        }
        if self.pop.val() & !self.push.val() {
            self.q_count.d.next = self.q_count.q.val() - self.q_one.val();
        }
        if self.rec_alloc_now.val() {
            self.rec_alloc.d.next = self.rec_alloc.q.val() + self.one_rec.val();
        }

        // The decision.
        self.wr_cur.d.next = self.wr_next.val();
        self.spoiled.d.next = self.spoiled_now.val();
        if self.pl_valid.val() {
            self.in_packet.d.next = !self.pl_last.val();
        }
        if self.payload_end.val() {
            self.packet_done.d.next = true;
        }
        self.dropped.d.next = self.decide.val() & self.head_accept.val() & !self.commit.val();
        if self.decide.val() {
            if self.head_slot.val() {
                self.rec_decided.d.next = self.rec_decided.q.val() + self.one_rec.val();
                for i in 0..RECORDS {
                    if self.rec_decided.q.val().get_bits::<RECORDS_LOG2>(0) == self.slot_id[i].val() {
                        self.kept[i].d.next = self.commit.val();
                    }
                }
            }
            if self.head_payload.val() {
                self.packet_done.d.next = false;
                self.spoiled.d.next = false;
                if self.commit.val() {
                    self.wr_commit.d.next = self.wr_next.val();
                } else {
                    // Rewind: the packet's beats are overwritten by the next one.
                    self.wr_cur.d.next = self.wr_commit.q.val();
                }
            }
        }
        self.payload.tail.next = self.wr_commit.q.val();
        self.records.tail.next = self.rec_decided.q.val();

        // Records of dropped frames are skipped on the way out.
        self.head_kept.next = false;
        for i in 0..RECORDS {
            if self.records.out_c.val() == self.slot_id[i].val() {
                self.head_kept.next = self.kept[i].q.val();
            }
        }
        self.records.out_ready.next = self.out_rec_ready.val() | !self.head_kept.val();
        self.out_rec_valid.next = self.records.out_valid.val() & self.head_kept.val();
        self.out_rec_word0.next = self.records.out_a.val();
        self.out_rec_word1.next = self.records.out_b.val();
        self.payload.out_ready.next = self.out_pl_ready.val();
        self.out_pl_valid.next = self.payload.out_valid.val();
        self.out_pl_data.next = self.payload.out_a.val();
        self.out_pl_keep.next = self.payload.out_b.val();
        self.out_pl_last.next = self.payload.out_c.val().any();
        self.no_buffer.next = self.dropped.q.val();
        self.hazard.next = self.hazard_seen.q.val();
    }
}
