//! The responder's answer queue: ACKs, NAKs, READs and atomics to answer, in request order,
//! for `ResponseTx`. An entry is released only once the host has acknowledged every payload
//! write the responder issued before it (`answer`'s `wseq` against `done_seq`), so a requester
//! never sees an ACK for data not in memory, a READ returns what an earlier WRITE put there,
//! and an atomic sees the writes before it — without holding up the packets behind it, which
//! go on being placed while the answer waits.
//!
//! A second read port (`ahead_at`) shows any entry's READ fields, kind and release, so
//! `ResponseTx` issues the host reads of the READs behind the one it sends (a copy of those
//! fields in a RAM of their own: the queue's RAMs have one read port, the head's).

use crate::ram_fifo::RamFifo;
use crate::stream::c;
use rust_hdl::prelude::*;

/// Bits of a queued answer (the responder's `AckWord`), its job word (`ReadJob` /
/// `AtomicJob`) and kind (`response_tx::JOB_*`).
pub const ANSWER_BITS: usize = 374;
pub const JOB_BITS: usize = 201;
/// Where the answer word keeps the count of payload writes issued before it (its top bits).
const WSEQ_AT: usize = ANSWER_BITS - 32;
/// Entries (a power of two; the pointers have one bit more): a write's acknowledge takes
/// 100 cycles from the host, and a 64-byte request asking for an ACK comes every 3.24 cycles at
/// line rate, so ACKs of about 31 requests wait at once (16 held a back-to-back stream up).
const DEPTH: u64 = 64;
/// Pointer bits, and an entry's address bits.
pub const ACK_PTR: usize = 7;
pub const ACK_ADDR: usize = ACK_PTR - 1;
const _: () = assert!(1 << ACK_ADDR == DEPTH);

crate::pack_word! {
    /// What the look-ahead port keeps of an entry: the job word's first 100 bits (a READ's
    /// `va`, `len`, `pmtu`: `ReadJob`), the kind and the write count. (`update` slices the
    /// RAM's word at 0, 64, 96, 100 and 102: literals, as hdl_gen needs.)
    lsb_first AheadWord: 134 { job: 100, kind: 2, wseq: 32 }
}

crate::hdl_block! {
    pub struct AckQueue {
        pub clock: Signal<In, Clock>,
        /// Queue `answer`, `job`, `kind` now; `pushed` says it went in (not while full).
        pub push: Signal<In, Bit>,
        pub answer: Signal<In, Bits<ANSWER_BITS>>,
        pub job: Signal<In, Bits<JOB_BITS>>,
        pub kind: Signal<In, Bits<2>>,
        pub pushed: Signal<Out, Bit>,
        /// Not full (from registers: a push next cycle would go in, as only this port adds).
        pub room: Signal<Out, Bit>,
        /// Payload writes the host has acknowledged so far (counts modulo 2^32).
        pub done_seq: Signal<In, Bits<32>>,
        /// The oldest entry, once released.
        pub out_valid: Signal<Out, Bit>,
        pub out_ready: Signal<In, Bit>,
        pub out_answer: Signal<Out, Bits<ANSWER_BITS>>,
        pub out_job: Signal<Out, Bits<JOB_BITS>>,
        pub out_kind: Signal<Out, Bits<2>>,
        /// The queue's pointers: entries before `head` have left, `tail` is the next free.
        pub head: Signal<Out, Bits<ACK_PTR>>,
        pub tail: Signal<Out, Bits<ACK_PTR>>,
        /// The look-ahead port: entry `ahead_at`'s READ fields, kind, and whether it is
        /// released (`ahead_at`: its address, the pointer's low bits), a cycle later (for an entry
        /// that was in the queue when asked).
        pub ahead_at: Signal<In, Bits<ACK_ADDR>>,
        pub ahead_va: Signal<Out, Bits<64>>,
        pub ahead_len: Signal<Out, Bits<32>>,
        pub ahead_pmtu: Signal<Out, Bits<4>>,
        pub ahead_kind: Signal<Out, Bits<2>>,
        pub ahead_released: Signal<Out, Bit>,

        fifo: RamFifo<ACK_PTR, 6, ANSWER_BITS, JOB_BITS, 2>,
        ahead_word: AheadWord,
        ahead_ram: RAM<Bits<134>, ACK_ADDR>,
        tail_q: DFF<Bits<ACK_PTR>>,
        depth: Constant<Bits<ACK_PTR>> = c::<ACK_PTR>(DEPTH),
        one: Constant<Bits<ACK_PTR>> = c::<ACK_PTR>(1),
        half32: Constant<Bits<32>> = c::<32>(0x8000_0000),
        wseq_at: Constant<Bits<9>> = c::<9>(WSEQ_AT as u64),
    }
}

impl Logic for AckQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tail_q);
        self.fifo.clock.next = self.clock.val();
        self.room.next = (self.tail_q.q.val() - self.fifo.head.val()) != self.depth.val();
        self.pushed.next = self.push.val() & self.room.val();
        self.fifo.wr_en.next = self.pushed.val();
        self.fifo.wr_addr.next = self.tail_q.q.val().get_bits::<6>(0);
        self.fifo.wr_a.next = self.answer.val();
        self.fifo.wr_b.next = self.job.val();
        self.fifo.wr_c.next = self.kind.val();
        self.fifo.tail.next = self.tail_q.q.val();
        if self.pushed.val() {
            self.tail_q.d.next = self.tail_q.q.val() + self.one.val();
        }
        // (`ResponseTx` takes the head off only after it saw it valid, perhaps many cycles
        // later: the release is not asked again.)
        self.out_valid.next = self.fifo.out_valid.val()
            & ((self.done_seq.val() - self.fifo.out_a.val().get_bits::<32>(self.wseq_at.val().index())) < self.half32.val());
        self.fifo.out_ready.next = self.out_ready.val();
        self.out_answer.next = self.fifo.out_a.val();
        self.out_job.next = self.fifo.out_b.val();
        self.out_kind.next = self.fifo.out_c.val();
        self.head.next = self.fifo.head.val();
        self.tail.next = self.tail_q.q.val();

        self.ahead_ram.read_clock.next = self.clock.val();
        self.ahead_ram.write_clock.next = self.clock.val();
        self.ahead_word.job.next = self.job.val().get_bits::<100>(0);
        self.ahead_word.kind.next = self.kind.val();
        self.ahead_word.wseq.next = self.answer.val().get_bits::<32>(self.wseq_at.val().index());
        self.ahead_ram.write_enable.next = self.pushed.val();
        self.ahead_ram.write_address.next = self.tail_q.q.val().get_bits::<ACK_ADDR>(0);
        self.ahead_ram.write_data.next = self.ahead_word.word.val();
        self.ahead_ram.read_address.next = self.ahead_at.val();
        self.ahead_va.next = self.ahead_ram.read_data.val().get_bits::<64>(0);
        self.ahead_len.next = self.ahead_ram.read_data.val().get_bits::<32>(64);
        self.ahead_pmtu.next = self.ahead_ram.read_data.val().get_bits::<4>(96);
        self.ahead_kind.next = self.ahead_ram.read_data.val().get_bits::<2>(100);
        self.ahead_released.next = (self.done_seq.val() - self.ahead_ram.read_data.val().get_bits::<32>(102)) < self.half32.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ahead_word_slices_are_where_update_reads_them() {
        let f = |name| crate::pack::field_at::<8>(AheadWord::FIELDS, name, 0).val().index();
        assert_eq!((f("job"), f("kind"), f("wseq")), (0, 100, 102));
        // The job word's READ fields sit in its first 100 bits where `update` reads them.
        let read = crate::roce::responder::ReadJob::FIELDS;
        let at = |name| read[..read.iter().position(|f| f.0 == name).unwrap()].iter().map(|f| f.1).sum::<usize>();
        assert_eq!((at("va"), at("len"), at("pmtu"), at("mid")), (0, 64, 96, 100));
    }
}
