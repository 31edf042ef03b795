//! The responder's memory of the RDMA READs it executed: per QP the last `SAVED` new READs'
//! first PSN and PSN count, so a duplicate READ whose PSN lies inside one of them, after its
//! first PSN, is known for what it is — a requester asking again for the rest of a READ (VA and
//! length moved on) — and answered from the middle with MIDDLE … LAST, as the original stream
//! would have gone on (IBTA Vol 1 §9.7.5.1.2; Linux rxe answers so, and its requester refuses a
//! FIRST there). The reference is `rnic_spec::responder::RspState::reads`.
//!
//! These are the QP's responder resources (`max_dest_rd_atomic` READs): a duplicate of a kept
//! READ *replaces* the answer to it that is queued or going out, as rxe replaces the resource
//! it replays — the requester that asked again drops the rest of the old answer anyway, and
//! answering every copy of a READ in full lets a short ACK timeout bury the link in answers
//! nobody waits for. Each entry has a 2-bit generation; the answer job carries its entry and
//! generation (`tag_*`), a duplicate bumps its entry's generation (`bump`), and `ResponseTx`
//! stops a job whose generation is no longer its entry's (`check_qp` → `check_gens`, a table
//! written with the word). A READ older than the eight, or a generation gone round, is answered
//! in full: replacing is only ever an economy, never needed for a right answer.
//!
//! One block-RAM word per QP holds the eight entries, the slot the next one goes to, a valid
//! bit and a generation per entry. `look` (the responder took a request record) reads the QP's
//! word; it is held from the next cycle, and `mid` and the tag compare the record's PSN
//! (`look_psn`, held by the responder) with every entry at once: `mid` valid two cycles after
//! the look, the tag (registered) three — the key check a READ waits for takes longer. A
//! duplicate is tagged (may replace) only when the QP's last answer queued is one to the same
//! kept READ (`last_read`, the responder's per-QP state). `save` (a new READ passed its key check) writes the held word back with the READ in
//! the next slot; `bump` (a duplicate inside a kept READ passed it) with that entry's new
//! generation. A commit clears the QP's word; a write in the commit's cycle waits a cycle (BAR
//! commits are at least three cycles apart), and one for the QP being committed is dropped (it
//! was the old QP's).

use crate::pack_word;
use crate::stream::{c, numbers, one_hot};
use rnic_spec::regs::QP_SLOT_BITS;
use rust_hdl::prelude::*;

/// READs kept per QP: as many as a requester may have outstanding (`qp::RD_SLOTS`).
pub const SAVED: usize = 8;
const _: () = assert!(rnic_spec::qp::RD_SLOTS as usize == SAVED && rnic_spec::responder::SAVED_ATOMICS == SAVED);
/// A QP's word: eight entries of 48 bits (first PSN, PSN count), then slot (3), valid (8) and
/// a 2-bit generation per entry (16).
const WORD: usize = 411;
const ENTRIES: usize = 48 * SAVED;
// (`update` reads the slot at bit 384, the valid bits at 387 and the generations at 395:
// literals, as hdl_gen needs.)
const VALID_AT: usize = ENTRIES + 3;
const GENS_AT: usize = VALID_AT + 8;
const _: () = assert!(ENTRIES == 384 && VALID_AT == 387 && GENS_AT == 395 && GENS_AT + 16 == WORD);

pack_word! {
    /// A new entry, in the low bits of a whole word (shifted into its slot).
    lsb_first HistEntry: 411 { psn: 24, packets: 24 }
}
pack_word! {
    /// A word's slot, valid bits and generations, above the entries.
    lsb_first HistMeta: 411 { pad: 384, slot: 3, valid: 8, gens: 16 }
}

/// A word with its low `n` bits set.
fn low_ones(n: usize) -> Constant<Bits<WORD>> {
    let mut b: Bits<WORD> = Bits::default();
    for i in 0..n {
        b = b.replace_bit(i, true);
    }
    Constant::new(b)
}

fn entry_offsets(plus: u64) -> [Constant<Bits<9>>; SAVED] {
    std::array::from_fn(|i| c::<9>(48 * i as u64 + plus))
}

crate::hdl_block! {
    pub struct ReadHistory {
        pub clock: Signal<In, Clock>,
        /// A commit of QP slot `qp_commit` (validated by the owner) clears its READs.
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<QP_SLOT_BITS>>,
        pub look_valid: Signal<In, Bit>,
        pub look_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        /// The looked-up request's PSN, from the cycle after the look on.
        pub look_psn: Signal<In, Bits<24>>,
        /// Inside a kept READ, after its first PSN (and at no kept READ's first PSN).
        pub mid: Signal<Out, Bit>,
        /// The looked-up request is a duplicate (held like `look_psn`).
        pub look_dup: Signal<In, Bit>,
        /// The QP's last answer queued is one to the READ kept in slot `last_slot` (held like
        /// `look_psn`): only then may a duplicate of that READ replace its answers — with an
        /// answer of another request behind them, the duplicate's answer would come after that
        /// one, and a requester waiting for the READ's next response would take the other's
        /// PSN for a loss.
        pub last_read: Signal<In, Bit>,
        pub last_slot: Signal<In, Bits<3>>,
        /// The entry an answer to the looked-up READ belongs to, and its generation: a new
        /// READ's next slot, a duplicate's kept READ with the generation a bump gives it (none
        /// for a duplicate outside the kept READs, or of one whose answers are not the QP's
        /// last: answered in full, replacing nothing).
        pub tag_valid: Signal<Out, Bit>,
        pub tag_slot: Signal<Out, Bits<3>>,
        pub tag_gen: Signal<Out, Bits<2>>,
        /// A new READ of the looked-up QP: its first PSN and PSN count.
        pub save_valid: Signal<In, Bit>,
        pub save_psn: Signal<In, Bits<24>>,
        pub save_packets: Signal<In, Bits<24>>,
        /// A duplicate of the looked-up QP answered, with a tag: its entry takes the tag's
        /// generation.
        pub bump_valid: Signal<In, Bit>,
        /// Every entry's generation of QP slot `check_qp`, the cycle after (for `ResponseTx`).
        pub check_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub check_gens: Signal<Out, Bits<16>>,

        ram: RAM<Bits<WORD>, QP_SLOT_BITS>,
        gens: RAM<Bits<16>, QP_SLOT_BITS>,
        loaded: DFF<Bit>,
        h_qp: DFF<Bits<QP_SLOT_BITS>>,
        held: DFF<Bits<WORD>>,
        p_valid: DFF<Bit>,
        p_qp: DFF<Bits<QP_SLOT_BITS>>,
        p_word: DFF<Bits<WORD>>,
        entry: HistEntry,
        meta: HistMeta,
        any_in: Signal<Local, Bit>,
        any_start: Signal<Local, Bit>,
        new_word: Signal<Local, Bits<WORD>>,
        saved_word: Signal<Local, Bits<WORD>>,
        save_now: Signal<Local, Bit>,
        t_valid: DFF<Bit>,
        t_slot: DFF<Bits<3>>,
        t_gen: DFF<Bits<2>>,
        hit_slot: Signal<Local, Bits<3>>,
        hit_gen: Signal<Local, Bits<2>>,
        next_gen: Signal<Local, Bits<2>>,
        bumped_gens: Signal<Local, Bits<16>>,
        w_en: Signal<Local, Bit>,
        w_addr: Signal<Local, Bits<QP_SLOT_BITS>>,
        psn_at: [Constant<Bits<9>>; SAVED] = entry_offsets(0),
        count_at: [Constant<Bits<9>>; SAVED] = entry_offsets(24),
        valid_at: [Constant<Bits<9>>; SAVED] = std::array::from_fn(|i| c::<9>((VALID_AT + i) as u64)),
        gen_at: [Constant<Bits<9>>; SAVED] = std::array::from_fn(|i| c::<9>((GENS_AT + 2 * i) as u64)),
        gen_field: [Constant<Bits<16>>; SAVED] = std::array::from_fn(|i| c::<16>(3 << (2 * i))),
        gen_one: [Constant<Bits<16>>; SAVED] = std::array::from_fn(|i| c::<16>(1 << (2 * i))),
        slot_no: [Constant<Bits<3>>; SAVED] = numbers::<3, SAVED>(),
        slot_bit: [Constant<Bits<8>>; SAVED] = one_hot::<8>(),
        entry_mask: Constant<Bits<WORD>> = low_ones(48),
        entries_mask: Constant<Bits<WORD>> = low_ones(ENTRIES),
        zero_word: Constant<Bits<WORD>> = Constant::new(Bits::default()),
        zero_pad: Constant<Bits<384>> = Constant::new(Bits::default()),
        one3: Constant<Bits<3>> = c::<3>(1),
        one2: Constant<Bits<2>> = c::<2>(1),
        zero16: Constant<Bits<16>> = c::<16>(0),
    }
}

impl Logic for ReadHistory {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, loaded, h_qp, held, p_valid, p_qp, p_word, t_valid, t_slot, t_gen);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.gens.read_clock.next = self.clock.val();
        self.gens.write_clock.next = self.clock.val();

        // Look: the QP's word arrives the next cycle and is held.
        self.ram.read_address.next = self.look_qp.val();
        self.loaded.d.next = self.look_valid.val();
        if self.look_valid.val() {
            self.h_qp.d.next = self.look_qp.val();
        }
        if self.loaded.q.val() {
            self.held.d.next = self.ram.read_data.val();
        }
        // The PSN against every kept READ: inside one (the last such is the tag's), or at one's
        // first PSN.
        self.any_in.next = false;
        self.any_start.next = false;
        self.hit_slot.next = self.held.q.val().get_bits::<3>(384);
        self.hit_gen.next = self.held.q.val().get_bits::<2>(395);
        self.next_gen.next = self.held.q.val().get_bits::<2>(395);
        for i in 0..SAVED {
            if self.held.q.val().get_bit(self.valid_at[i].val().index())
                & ((self.look_psn.val() - self.held.q.val().get_bits::<24>(self.psn_at[i].val().index()))
                    < self.held.q.val().get_bits::<24>(self.count_at[i].val().index()))
            {
                self.any_in.next = true;
                self.hit_slot.next = self.slot_no[i].val();
                self.hit_gen.next = self.held.q.val().get_bits::<2>(self.gen_at[i].val().index());
            }
            if self.held.q.val().get_bit(self.valid_at[i].val().index())
                & (self.look_psn.val() == self.held.q.val().get_bits::<24>(self.psn_at[i].val().index()))
            {
                self.any_start.next = true;
            }
            if self.held.q.val().get_bits::<3>(384) == self.slot_no[i].val() {
                self.next_gen.next = self.held.q.val().get_bits::<2>(self.gen_at[i].val().index());
            }
        }
        self.mid.next = self.any_in.val() & !self.any_start.val();
        // The tag: a new READ takes the next slot as its generation stands (the READ it
        // replaces there is long answered when a requester keeps to eight); a duplicate its
        // kept READ's next generation.
        // (Registered: the owner's bump, which reads the tag, comes from no path through here.)
        self.t_valid.d.next = true;
        self.t_slot.d.next = self.held.q.val().get_bits::<3>(384);
        self.t_gen.d.next = self.next_gen.val();
        if self.look_dup.val() {
            self.t_valid.d.next = self.any_in.val() & self.last_read.val() & (self.last_slot.val() == self.hit_slot.val());
            self.t_slot.d.next = self.hit_slot.val();
            self.t_gen.d.next = self.hit_gen.val() + self.one2.val();
        }
        self.tag_valid.next = self.t_valid.q.val();
        self.tag_slot.next = self.t_slot.q.val();
        self.tag_gen.next = self.t_gen.q.val();
        self.bumped_gens.next = self.held.q.val().get_bits::<16>(395);
        for i in 0..SAVED {
            if self.hit_slot.val() == self.slot_no[i].val() {
                // (Adding one at the entry's field and keeping only that field: its generation
                // plus one, modulo four.)
                self.bumped_gens.next = (self.held.q.val().get_bits::<16>(395) & !self.gen_field[i].val())
                    | ((self.held.q.val().get_bits::<16>(395) + self.gen_one[i].val()) & self.gen_field[i].val());
            }
        }

        // Save: the held word with the new READ in its next slot; bump: with the duplicate's
        // entry at its new generation.
        self.entry.psn.next = self.save_psn.val();
        self.entry.packets.next = self.save_packets.val();
        self.meta.pad.next = self.zero_pad.val();
        self.meta.slot.next = self.held.q.val().get_bits::<3>(384) + self.one3.val();
        self.meta.valid.next = self.held.q.val().get_bits::<8>(387);
        self.meta.gens.next = self.held.q.val().get_bits::<16>(395);
        self.new_word.next = self.held.q.val() & self.entries_mask.val();
        for i in 0..SAVED {
            if self.held.q.val().get_bits::<3>(384) == self.slot_no[i].val() {
                self.meta.valid.next = self.held.q.val().get_bits::<8>(387) | self.slot_bit[i].val();
                self.new_word.next = (self.held.q.val() & self.entries_mask.val() & !(self.entry_mask.val() << self.psn_at[i].val()))
                    | (self.entry.word.val() << self.psn_at[i].val());
            }
        }
        if self.bump_valid.val() {
            self.meta.slot.next = self.held.q.val().get_bits::<3>(384);
            self.meta.gens.next = self.bumped_gens.val();
            self.new_word.next = self.held.q.val() & self.entries_mask.val();
        }
        self.saved_word.next = self.new_word.val() | self.meta.word.val();

        // The write port: a commit first, then a write held back by one, then a save or bump.
        // The generation table is written with the word, from the same bits.
        self.save_now.next = (self.save_valid.val() | self.bump_valid.val()) & !(self.qp_commit_valid.val() & (self.qp_commit.val() == self.h_qp.q.val()));
        self.w_en.next = self.qp_commit_valid.val() | self.p_valid.q.val() | self.save_now.val();
        self.w_addr.next = self.h_qp.q.val();
        self.ram.write_data.next = self.saved_word.val();
        self.gens.write_data.next = self.saved_word.val().get_bits::<16>(395);
        if self.p_valid.q.val() {
            self.w_addr.next = self.p_qp.q.val();
            self.ram.write_data.next = self.p_word.q.val();
            self.gens.write_data.next = self.p_word.q.val().get_bits::<16>(395);
        }
        if self.qp_commit_valid.val() {
            self.w_addr.next = self.qp_commit.val();
            self.ram.write_data.next = self.zero_word.val();
            self.gens.write_data.next = self.zero16.val();
        }
        self.ram.write_enable.next = self.w_en.val();
        self.ram.write_address.next = self.w_addr.val();
        self.gens.write_enable.next = self.w_en.val();
        self.gens.write_address.next = self.w_addr.val();
        self.p_valid.d.next = self.qp_commit_valid.val() & self.save_now.val();
        self.p_qp.d.next = self.h_qp.q.val();
        self.p_word.d.next = self.saved_word.val();
        self.gens.read_address.next = self.check_qp.val();
        self.check_gens.next = self.gens.read_data.val();
    }
}
