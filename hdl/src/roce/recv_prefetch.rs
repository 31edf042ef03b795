//! The responder's receive queues: per QP the producer index (`doorbell.rq`), the next WQE
//! index to fetch, the ring, and one receive WQE fetched ahead from host memory, so a SEND
//! usually finds its buffer on the card.
//!
//! A QP is looked at when a doorbell comes, when its fetched WQE is taken, and when the
//! responder waits for it (`waiting`, once per request record); a look that finds no WQE fetched
//! or being fetched, and one posted, reads the next one from the ring (a 32-byte DMA read, the
//! QP remembered in a queue of reads in flight; each returning beat is the WQE of the QP at its
//! head). A commit empties the QP's queue; a read in flight for a QP committed since belongs to
//! the QP as it was and its fill is thrown away (`discard`: no new read starts for the QP until
//! it lands). The consumer index is the responder's (its per-QP state): the WQE taken is always
//! the one at its index, because WQEs are fetched in ring order and taken one at a time.

use crate::pack_word;
use crate::ram_fifo::RamFifo;
use crate::stream::c;
use rnic_spec::desc::{recv_wqe, RECV_WQE_LEN};
use rnic_spec::regs::QP_SLOT_BITS;
use rust_hdl::prelude::*;

pack_word! { lsb_first RqOffset: 64 { zero: 5, index: 16 } }
const _: () = assert!(RECV_WQE_LEN == 1 << 5);
pack_word! {
    /// A QP's receive ring, as the prefetcher keeps it (set by `qp.commit`).
    lsb_first RingWord: 68 { base_lo: 32, base_hi: 32, log: 4 }
}
pack_word! {
    /// A prefetched receive WQE: the buffer, and whether its read failed. (`update` slices the
    /// RAM's word at 0, 64, 96 and 128: literals, as hdl_gen needs.)
    lsb_first CachedWqe: 129 { addr: 64, len: 32, lkey: 32, error: 1 }
}

crate::hdl_block! {
    pub struct RecvPrefetch {
        pub clock: Signal<In, Clock>,
        /// A commit of QP slot `commit_qp` (validated by the owner): its queue starts empty,
        /// at the ring staged in `ring_*` (`qp.rq_base_lo/hi`, `qp.rq_log_size`).
        pub commit_ok: Signal<In, Bit>,
        pub commit_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        /// A commit command in this cycle, valid or not: nothing is looked up now (the RAM
        /// words read would be the QP's as it was).
        pub commit_any: Signal<In, Bit>,
        pub ring_lo: Signal<In, Bits<32>>,
        pub ring_hi: Signal<In, Bits<32>>,
        pub ring_log: Signal<In, Bits<4>>,
        /// A receive doorbell (validated): QP `db_qp`'s producer index is now `db_pi`.
        pub db_valid: Signal<In, Bit>,
        pub db_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub db_pi: Signal<In, Bits<16>>,
        /// The responder takes a request record for QP `rec_qp`: its producer and next fetch
        /// index, a cycle later.
        pub rec_take: Signal<In, Bit>,
        pub rec_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub rec_pi: Signal<Out, Bits<16>>,
        pub rec_fi: Signal<Out, Bits<16>>,
        /// The packet's QP (a register of the responder): whether its WQE is fetched or being
        /// fetched, and the fetched WQE (of the previous cycle's `at_qp`).
        pub at_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub at_cached: Signal<Out, Bit>,
        pub at_fetching: Signal<Out, Bit>,
        pub wqe_addr: Signal<Out, Bits<64>>,
        pub wqe_len: Signal<Out, Bits<32>>,
        pub wqe_lkey: Signal<Out, Bits<32>>,
        pub wqe_error: Signal<Out, Bit>,
        /// `waiting`: the responder waits for `at_qp`'s WQE (a look is asked for once per record).
        pub waiting: Signal<In, Bit>,
        /// The responder takes `at_qp`'s fetched WQE.
        pub take: Signal<In, Bit>,
        /// DMA read port: one WQE per read.
        pub rd_valid: Signal<Out, Bit>,
        pub rd_ready: Signal<In, Bit>,
        pub rd_addr: Signal<Out, Bits<64>>,
        pub rd_len: Signal<Out, Bits<16>>,
        pub rdd_valid: Signal<In, Bit>,
        pub rdd_ready: Signal<Out, Bit>,
        pub rdd_data: Signal<In, Bits<512>>,
        pub rdd_error: Signal<In, Bit>,

        /// Producer indexes (a copy for the responder's record and one for the looks: a RAM
        /// has one read port), next fetch indexes (the same), rings, fetched WQEs.
        rq_pi_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        pf_pi_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        pf_fi_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        fi_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        ring_ram: RAM<Bits<68>, QP_SLOT_BITS>,
        wqe_ram: RAM<Bits<129>, QP_SLOT_BITS>,
        ring_word: RingWord,
        cached_word: CachedWqe,
        rq_off: RqOffset,
        cached: DFF<Bits<256>>,
        fetching: DFF<Bits<256>>,
        /// QPs committed while their WQE read was in flight.
        discard: DFF<Bits<256>>,
        /// QPs to look at, and the QP of each read in flight.
        pf_look: RamFifo<6, 5, QP_SLOT_BITS, 1, 1>,
        pf_look_tail: DFF<Bits<6>>,
        pf_flight: RamFifo<6, 5, QP_SLOT_BITS, 1, 1>,
        pf_flight_tail: DFF<Bits<6>>,
        /// Look requests waiting for the queue: a doorbell's, a taken WQE's.
        pend_db: DFF<Bit>,
        pend_db_qp: DFF<Bits<QP_SLOT_BITS>>,
        pend_take: DFF<Bit>,
        pend_take_qp: DFF<Bits<QP_SLOT_BITS>>,
        /// The responder's wait was put in the look queue (for this record).
        kicked: DFF<Bit>,
        /// The look: idle, reading the QP's words, issuing its read.
        e_state: DFF<Bits<2>>,
        e_qp: DFF<Bits<QP_SLOT_BITS>>,
        e_fi: DFF<Bits<16>>,
        e_base: DFF<Bits<64>>,
        e_mask: DFF<Bits<16>>,
        e_idle: Constant<Bits<2>> = c::<2>(0),
        e_look: Constant<Bits<2>> = c::<2>(1),
        e_cmd: Constant<Bits<2>> = c::<2>(2),
        pf_push: Signal<Local, Bit>,
        pf_push_qp: Signal<Local, Bits<QP_SLOT_BITS>>,
        look_room: Signal<Local, Bit>,
        pf_issue: Signal<Local, Bit>,
        pf_fill: Signal<Local, Bit>,
        set_cached: Signal<Local, Bits<256>>,
        clear_cached: Signal<Local, Bits<256>>,
        set_fetching: Signal<Local, Bits<256>>,
        clear_fetching: Signal<Local, Bits<256>>,
        commit_mask: Signal<Local, Bits<256>>,
        fill_mask: Signal<Local, Bits<256>>,
        /// A fill for a QP not committed since its read was issued.
        keep_fill: Signal<Local, Bit>,
        e_wanted: Signal<Local, Bit>,
        e_commit_hit: Signal<Local, Bit>,
        /// The bit vectors shifted down to a QP (bit 0 is its bit).
        e_cached_at: Signal<Local, Bits<256>>,
        e_fetching_at: Signal<Local, Bits<256>>,
        e_discard_at: Signal<Local, Bits<256>>,
        fill_discard_at: Signal<Local, Bits<256>>,
        fill_commit_at: Signal<Local, Bits<256>>,
        at_cached_at: Signal<Local, Bits<256>>,
        at_fetching_at: Signal<Local, Bits<256>>,
        one256: Constant<Bits<256>> = c::<256>(1),
        zero256: Constant<Bits<256>> = c::<256>(0),
        one6: Constant<Bits<6>> = c::<6>(1),
        depth6: Constant<Bits<6>> = c::<6>(32),
        one16: Constant<Bits<16>> = c::<16>(1),
        zero16: Constant<Bits<16>> = c::<16>(0),
        zero5: Constant<Bits<5>> = c::<5>(0),
        zero1: Constant<Bits<1>> = c::<1>(0),
        one1: Constant<Bits<1>> = c::<1>(1),
        wqe_bytes: Constant<Bits<16>> = c::<16>(RECV_WQE_LEN as u64),
        w_addr_at: Constant<Bits<9>> = c::<9>(8 * recv_wqe::ADDR as u64),
        w_len_at: Constant<Bits<9>> = c::<9>(8 * recv_wqe::LENGTH as u64),
        w_lkey_at: Constant<Bits<9>> = c::<9>(8 * recv_wqe::LKEY as u64),
    }
}

impl Logic for RecvPrefetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cached, fetching, discard, pf_look_tail, pf_flight_tail, pend_db, pend_db_qp, pend_take, pend_take_qp, kicked,
            e_state, e_qp, e_fi, e_base, e_mask
        );
        self.rq_pi_ram.read_clock.next = self.clock.val();
        self.rq_pi_ram.write_clock.next = self.clock.val();
        self.pf_pi_ram.read_clock.next = self.clock.val();
        self.pf_pi_ram.write_clock.next = self.clock.val();
        self.pf_fi_ram.read_clock.next = self.clock.val();
        self.pf_fi_ram.write_clock.next = self.clock.val();
        self.fi_ram.read_clock.next = self.clock.val();
        self.fi_ram.write_clock.next = self.clock.val();
        self.ring_ram.read_clock.next = self.clock.val();
        self.ring_ram.write_clock.next = self.clock.val();
        self.wqe_ram.read_clock.next = self.clock.val();
        self.wqe_ram.write_clock.next = self.clock.val();
        self.pf_look.clock.next = self.clock.val();
        self.pf_flight.clock.next = self.clock.val();

        // Producer indexes: a doorbell's, zero on a commit (BAR writes come one at a time).
        self.rq_pi_ram.write_enable.next = self.commit_ok.val() | self.db_valid.val();
        self.rq_pi_ram.write_address.next = self.db_qp.val();
        self.rq_pi_ram.write_data.next = self.db_pi.val();
        if self.commit_ok.val() {
            self.rq_pi_ram.write_address.next = self.commit_qp.val();
            self.rq_pi_ram.write_data.next = self.zero16.val();
        }
        self.pf_pi_ram.write_enable.next = self.rq_pi_ram.write_enable.val();
        self.pf_pi_ram.write_address.next = self.rq_pi_ram.write_address.val();
        self.pf_pi_ram.write_data.next = self.rq_pi_ram.write_data.val();
        self.rq_pi_ram.read_address.next = self.rec_qp.val();
        self.fi_ram.read_address.next = self.rec_qp.val();
        self.rec_pi.next = self.rq_pi_ram.read_data.val();
        self.rec_fi.next = self.fi_ram.read_data.val();

        self.ring_word.base_lo.next = self.ring_lo.val();
        self.ring_word.base_hi.next = self.ring_hi.val();
        self.ring_word.log.next = self.ring_log.val();
        self.ring_ram.write_enable.next = self.commit_ok.val();
        self.ring_ram.write_address.next = self.commit_qp.val();
        self.ring_ram.write_data.next = self.ring_word.word.val();
        self.commit_mask.next = self.zero256.val();
        if self.commit_ok.val() {
            self.commit_mask.next = self.one256.val() << self.commit_qp.val();
        }

        // Look requests: a doorbell's first, then a taken WQE's, then the responder's wait.
        // (A full queue loses the request: the wait looks again while it waits.)
        if self.db_valid.val() {
            self.pend_db.d.next = true;
            self.pend_db_qp.d.next = self.db_qp.val();
        }
        self.look_room.next = (self.pf_look_tail.q.val() - self.pf_look.head.val()) != self.depth6.val();
        self.pf_push.next = self.pend_db.q.val() | self.pend_take.q.val() | (self.waiting.val() & !self.kicked.q.val());
        self.pf_push_qp.next = self.at_qp.val();
        if self.pend_take.q.val() {
            self.pf_push_qp.next = self.pend_take_qp.q.val();
        }
        if self.pend_db.q.val() {
            self.pf_push_qp.next = self.pend_db_qp.q.val();
        }
        self.pf_look.wr_en.next = self.pf_push.val() & self.look_room.val();
        self.pf_look.wr_addr.next = self.pf_look_tail.q.val().get_bits::<5>(0);
        self.pf_look.wr_a.next = self.pf_push_qp.val();
        self.pf_look.wr_b.next = self.zero1.val();
        self.pf_look.wr_c.next = self.zero1.val();
        self.pf_look.tail.next = self.pf_look_tail.q.val();
        if self.pf_look.wr_en.val() {
            self.pf_look_tail.d.next = self.pf_look_tail.q.val() + self.one6.val();
        }
        if self.pend_db.q.val() & !self.db_valid.val() {
            self.pend_db.d.next = false;
        }
        if !self.pend_db.q.val() & self.pend_take.q.val() {
            self.pend_take.d.next = false;
        }
        if self.waiting.val() & !self.pend_db.q.val() & !self.pend_take.q.val() & self.look_room.val() {
            self.kicked.d.next = true;
        }
        if self.rec_take.val() {
            self.kicked.d.next = false;
        }

        // The look: the QP's producer index, next fetch index and ring, read as it is taken.
        self.pf_look.out_ready.next = (self.e_state.q.val() == self.e_idle.val()) & !self.commit_any.val();
        self.pf_pi_ram.read_address.next = self.pf_look.out_a.val();
        self.pf_fi_ram.read_address.next = self.pf_look.out_a.val();
        self.ring_ram.read_address.next = self.pf_look.out_a.val();
        if (self.e_state.q.val() == self.e_idle.val()) & self.pf_look.out_valid.val() & !self.commit_any.val() {
            self.e_qp.d.next = self.pf_look.out_a.val();
            self.e_state.d.next = self.e_look.val();
        }
        self.e_cached_at.next = self.cached.q.val() >> self.e_qp.q.val();
        self.e_fetching_at.next = self.fetching.q.val() >> self.e_qp.q.val();
        self.e_discard_at.next = self.discard.q.val() >> self.e_qp.q.val();
        self.e_wanted.next = !self.e_cached_at.val().get_bit(0)
            & !self.e_fetching_at.val().get_bit(0)
            & !self.e_discard_at.val().get_bit(0)
            & (self.pf_pi_ram.read_data.val() != self.pf_fi_ram.read_data.val());
        if self.e_state.q.val() == self.e_look.val() {
            self.e_fi.d.next = self.pf_fi_ram.read_data.val();
            self.e_base.d.next = self.ring_ram.read_data.val().get_bits::<64>(0);
            self.e_mask.d.next = (self.one16.val() << self.ring_ram.read_data.val().get_bits::<4>(64)) - self.one16.val();
            self.e_state.d.next = self.e_idle.val();
            if self.e_wanted.val() {
                self.e_state.d.next = self.e_cmd.val();
            }
        }
        // The read: one entry at the fetch index, while there is room to remember its QP (a
        // commit in the same cycle goes first: it writes the fetch index too).
        // (The room is spelled out in both uses: a local shared by a valid and the statement
        // reading its ready is a combinational loop to Verilator, see the requester.)
        self.rq_off.zero.next = self.zero5.val();
        self.rq_off.index.next = self.e_fi.q.val() & self.e_mask.q.val();
        self.rd_valid.next = (self.e_state.q.val() == self.e_cmd.val())
            & !self.commit_any.val()
            & ((self.pf_flight_tail.q.val() - self.pf_flight.head.val()) != self.depth6.val());
        self.rd_addr.next = self.e_base.q.val() + self.rq_off.word.val();
        self.rd_len.next = self.wqe_bytes.val();
        self.pf_issue.next = (self.e_state.q.val() == self.e_cmd.val())
            & !self.commit_any.val()
            & ((self.pf_flight_tail.q.val() - self.pf_flight.head.val()) != self.depth6.val())
            & self.rd_ready.val();
        if self.pf_issue.val() {
            self.e_state.d.next = self.e_idle.val();
            self.pf_flight_tail.d.next = self.pf_flight_tail.q.val() + self.one6.val();
        }
        // A commit of the QP being looked at ends the look (the commit empties its queue).
        self.e_commit_hit.next =
            self.commit_ok.val() & (self.commit_qp.val() == self.e_qp.q.val()) & (self.e_state.q.val() != self.e_idle.val());
        if self.e_commit_hit.val() {
            self.e_state.d.next = self.e_idle.val();
        }
        self.pf_flight.wr_en.next = self.pf_issue.val();
        self.pf_flight.wr_addr.next = self.pf_flight_tail.q.val().get_bits::<5>(0);
        self.pf_flight.wr_a.next = self.e_qp.q.val();
        self.pf_flight.wr_b.next = self.zero1.val();
        self.pf_flight.wr_c.next = self.zero1.val();
        self.pf_flight.tail.next = self.pf_flight_tail.q.val();
        self.pf_fi_ram.write_enable.next = self.pf_issue.val() | self.commit_ok.val();
        self.pf_fi_ram.write_address.next = self.e_qp.q.val();
        self.pf_fi_ram.write_data.next = self.e_fi.q.val() + self.one16.val();
        if self.commit_ok.val() {
            self.pf_fi_ram.write_address.next = self.commit_qp.val();
            self.pf_fi_ram.write_data.next = self.zero16.val();
        }
        self.fi_ram.write_enable.next = self.pf_fi_ram.write_enable.val();
        self.fi_ram.write_address.next = self.pf_fi_ram.write_address.val();
        self.fi_ram.write_data.next = self.pf_fi_ram.write_data.val();

        // Fill: each returning beat is the WQE of the QP at the head of the flight queue.
        self.rdd_ready.next = self.pf_flight.out_valid.val();
        self.pf_fill.next = self.rdd_valid.val() & self.pf_flight.out_valid.val();
        self.pf_flight.out_ready.next = self.rdd_valid.val();
        self.cached_word.addr.next = self.rdd_data.val().get_bits::<64>(self.w_addr_at.val().index());
        self.cached_word.len.next = self.rdd_data.val().get_bits::<32>(self.w_len_at.val().index());
        self.cached_word.lkey.next = self.rdd_data.val().get_bits::<32>(self.w_lkey_at.val().index());
        self.cached_word.error.next = self.zero1.val();
        if self.rdd_error.val() {
            self.cached_word.error.next = self.one1.val();
        }
        self.fill_mask.next = self.zero256.val();
        if self.pf_fill.val() {
            self.fill_mask.next = self.one256.val() << self.pf_flight.out_a.val();
        }
        self.fill_discard_at.next = self.discard.q.val() >> self.pf_flight.out_a.val();
        self.fill_commit_at.next = self.commit_mask.val() >> self.pf_flight.out_a.val();
        self.keep_fill.next = self.pf_fill.val() & !self.fill_discard_at.val().get_bit(0) & !self.fill_commit_at.val().get_bit(0);
        self.wqe_ram.write_enable.next = self.keep_fill.val();
        self.wqe_ram.write_address.next = self.pf_flight.out_a.val();
        self.wqe_ram.write_data.next = self.cached_word.word.val();
        self.wqe_ram.read_address.next = self.at_qp.val();
        self.wqe_addr.next = self.wqe_ram.read_data.val().get_bits::<64>(0);
        self.wqe_len.next = self.wqe_ram.read_data.val().get_bits::<32>(64);
        self.wqe_lkey.next = self.wqe_ram.read_data.val().get_bits::<32>(96);
        self.wqe_error.next = self.wqe_ram.read_data.val().get_bit(128);
        // A thrown-away fill lets the responder ask again: the read it waited on was the old
        // QP's.
        if self.pf_fill.val() & !self.keep_fill.val() {
            self.kicked.d.next = false;
        }

        // The per-QP bits: fetched on fill, taken by the responder, cleared by a commit.
        self.set_cached.next = self.zero256.val();
        if self.keep_fill.val() {
            self.set_cached.next = self.fill_mask.val();
        }
        self.clear_fetching.next = self.commit_mask.val() | self.fill_mask.val();
        self.discard.d.next = (self.discard.q.val() | (self.commit_mask.val() & self.fetching.q.val())) & !self.fill_mask.val();
        self.set_fetching.next = self.zero256.val();
        if self.pf_issue.val() {
            self.set_fetching.next = self.one256.val() << self.e_qp.q.val();
        }
        self.clear_cached.next = self.commit_mask.val();
        if self.take.val() {
            self.clear_cached.next = self.commit_mask.val() | (self.one256.val() << self.at_qp.val());
            self.pend_take.d.next = true;
            self.pend_take_qp.d.next = self.at_qp.val();
        }
        self.cached.d.next = (self.cached.q.val() | self.set_cached.val()) & !self.clear_cached.val();
        self.fetching.d.next = (self.fetching.q.val() | self.set_fetching.val()) & !self.clear_fetching.val();
        self.at_cached_at.next = self.cached.q.val() >> self.at_qp.val();
        self.at_fetching_at.next = self.fetching.q.val() >> self.at_qp.val();
        self.at_cached.next = self.at_cached_at.val().get_bit(0);
        self.at_fetching.next = self.at_fetching_at.val().get_bit(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_wqe_slices_are_where_update_reads_them() {
        let f = |name: &str| {
            let i = CachedWqe::FIELDS.iter().position(|f| f.0 == name).unwrap();
            CachedWqe::FIELDS[..i].iter().map(|f| f.1).sum::<usize>()
        };
        assert_eq!((f("addr"), f("len"), f("lkey"), f("error")), (0, 64, 96, 128));
    }
}
