//! Memory-region table and access check (`rnic_spec::mr`): a key, protection domain, address,
//! length and the access needed in; a verdict out `MR_CHECK_LATENCY` cycles later, one check per
//! cycle. The table is block RAM indexed by the key's low bits; the whole key must match. Zero
//! lengths pass unchecked (C9-88). Software writes slots through the `cfg_*` port; a slot
//! should not be rewritten while a check of it is in flight.

use crate::stream::c;
use rnic_spec::mr::AccessError;
use rust_hdl::prelude::*;

/// Cycles from a check's inputs to its verdict.
pub const MR_CHECK_LATENCY: usize = 3;
/// Slot index bits: 256 regions.
pub const MR_SLOT_BITS: usize = 8;

const ENTRY_BITS: usize = 1 + 32 + 64 + 32 + 4 + 16;

crate::pack_word! {
    /// A table entry as the RAM stores it.
    lsb_first MrEntry: 149 { valid: 1, key: 32, base: 64, length: 32, access: 4, pd: 16 }
}
crate::pack_word! { lsb_first Wide64: 72 { x: 64 } }
crate::pack_word! { lsb_first Wide32: 72 { x: 32 } }

crate::hdl_block! {
    pub struct MrTable {
        pub clock: Signal<In, Clock>,
        pub cfg_wr: Signal<In, Bit>,
        pub cfg_slot: Signal<In, Bits<MR_SLOT_BITS>>,
        /// The slot holds a region (0 invalidates it).
        pub cfg_valid: Signal<In, Bit>,
        pub cfg_key: Signal<In, Bits<32>>,
        pub cfg_base: Signal<In, Bits<64>>,
        pub cfg_length: Signal<In, Bits<32>>,
        pub cfg_access: Signal<In, Bits<4>>,
        pub cfg_pd: Signal<In, Bits<16>>,
        pub chk_valid: Signal<In, Bit>,
        pub chk_key: Signal<In, Bits<32>>,
        pub chk_pd: Signal<In, Bits<16>>,
        pub chk_addr: Signal<In, Bits<64>>,
        pub chk_len: Signal<In, Bits<32>>,
        /// Access flags needed (`rnic_spec::mr::access`).
        pub chk_need: Signal<In, Bits<4>>,
        /// Carried to the verdict, to match it with its request.
        pub chk_tag: Signal<In, Bits<16>>,
        pub res_valid: Signal<Out, Bit>,
        /// 0: allowed; otherwise an `AccessError` code.
        pub res_error: Signal<Out, Bits<3>>,
        pub res_tag: Signal<Out, Bits<16>>,

        ram: RAM<Bits<ENTRY_BITS>, MR_SLOT_BITS>,
        entry: MrEntry,
        addr72: Wide64,
        len72: Wide32,
        base72: Wide64,
        length72: Wide32,
        one_bit: Constant<Bits<1>> = c::<1>(1),
        zero_bit: Constant<Bits<1>> = c::<1>(0),
        zero32: Constant<Bits<32>> = c::<32>(0),
        ok: Constant<Bits<3>> = c::<3>(0),
        e_key: Constant<Bits<3>> = c::<3>(AccessError::UnknownKey as u64),
        e_pd: Constant<Bits<3>> = c::<3>(AccessError::WrongPd as u64),
        e_access: Constant<Bits<3>> = c::<3>(AccessError::NoAccess as u64),
        e_bounds: Constant<Bits<3>> = c::<3>(AccessError::OutOfBounds as u64),

        s1_valid: DFF<Bit>,
        s1_key: DFF<Bits<32>>,
        s1_pd: DFF<Bits<16>>,
        s1_addr: DFF<Bits<64>>,
        s1_len: DFF<Bits<32>>,
        s1_need: DFF<Bits<4>>,
        s1_tag: DFF<Bits<16>>,
        s2_valid: DFF<Bit>,
        s2_zero: DFF<Bit>,
        s2_hit: DFF<Bit>,
        s2_pd_ok: DFF<Bit>,
        s2_access_ok: DFF<Bit>,
        s2_lower_ok: DFF<Bit>,
        s2_end: DFF<Bits<72>>,
        s2_limit: DFF<Bits<72>>,
        s2_tag: DFF<Bits<16>>,
        s3_valid: DFF<Bit>,
        s3_error: DFF<Bits<3>>,
        s3_tag: DFF<Bits<16>>,

        e_valid: Signal<Local, Bit>,
        e_key_v: Signal<Local, Bits<32>>,
        e_base: Signal<Local, Bits<64>>,
        e_length: Signal<Local, Bits<32>>,
        e_access_v: Signal<Local, Bits<4>>,
        e_pd_v: Signal<Local, Bits<16>>,
        error: Signal<Local, Bits<3>>,
    }
}

impl Logic for MrTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_valid, s1_key, s1_pd, s1_addr, s1_len, s1_need, s1_tag, s2_valid, s2_zero, s2_hit,
            s2_pd_ok, s2_access_ok, s2_lower_ok, s2_end, s2_limit, s2_tag, s3_valid, s3_error, s3_tag
        );
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.entry.valid.next = self.zero_bit.val();
        if self.cfg_valid.val() {
            self.entry.valid.next = self.one_bit.val();
        }
        self.entry.key.next = self.cfg_key.val();
        self.entry.base.next = self.cfg_base.val();
        self.entry.length.next = self.cfg_length.val();
        self.entry.access.next = self.cfg_access.val();
        self.entry.pd.next = self.cfg_pd.val();
        self.ram.write_enable.next = self.cfg_wr.val();
        self.ram.write_address.next = self.cfg_slot.val();
        self.ram.write_data.next = self.entry.word.val();

        // Cycle 0: look the slot up.
        self.ram.read_address.next = self.chk_key.val().get_bits::<MR_SLOT_BITS>(0);
        self.s1_valid.d.next = self.chk_valid.val();
        self.s1_key.d.next = self.chk_key.val();
        self.s1_pd.d.next = self.chk_pd.val();
        self.s1_addr.d.next = self.chk_addr.val();
        self.s1_len.d.next = self.chk_len.val();
        self.s1_need.d.next = self.chk_need.val();
        self.s1_tag.d.next = self.chk_tag.val();

        // Cycle 1: compare key, domain, access; the two ends of the range, 72 bits wide so
        // nothing wraps.
        self.e_valid.next = self.ram.read_data.val().get_bit(0);
        self.e_key_v.next = self.ram.read_data.val().get_bits::<32>(1);
        self.e_base.next = self.ram.read_data.val().get_bits::<64>(33);
        self.e_length.next = self.ram.read_data.val().get_bits::<32>(97);
        self.e_access_v.next = self.ram.read_data.val().get_bits::<4>(129);
        self.e_pd_v.next = self.ram.read_data.val().get_bits::<16>(133);
        self.addr72.x.next = self.s1_addr.q.val();
        self.len72.x.next = self.s1_len.q.val();
        self.base72.x.next = self.e_base.val();
        self.length72.x.next = self.e_length.val();
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_zero.d.next = self.s1_len.q.val() == self.zero32.val();
        self.s2_hit.d.next = self.e_valid.val() & (self.e_key_v.val() == self.s1_key.q.val());
        self.s2_pd_ok.d.next = self.e_pd_v.val() == self.s1_pd.q.val();
        self.s2_access_ok.d.next = (self.e_access_v.val() & self.s1_need.q.val()) == self.s1_need.q.val();
        self.s2_lower_ok.d.next = self.s1_addr.q.val() >= self.e_base.val();
        self.s2_end.d.next = self.addr72.word.val() + self.len72.word.val();
        self.s2_limit.d.next = self.base72.word.val() + self.length72.word.val();
        self.s2_tag.d.next = self.s1_tag.q.val();

        // Cycle 2: the verdict, first failing check first.
        self.error.next = self.ok.val();
        if !(self.s2_lower_ok.q.val() & (self.s2_end.q.val() <= self.s2_limit.q.val())) {
            self.error.next = self.e_bounds.val();
        }
        if !self.s2_access_ok.q.val() {
            self.error.next = self.e_access.val();
        }
        if !self.s2_pd_ok.q.val() {
            self.error.next = self.e_pd.val();
        }
        if !self.s2_hit.q.val() {
            self.error.next = self.e_key.val();
        }
        if self.s2_zero.q.val() {
            self.error.next = self.ok.val();
        }
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_error.d.next = self.error.val();
        self.s3_tag.d.next = self.s2_tag.q.val();
        self.res_valid.next = self.s3_valid.q.val();
        self.res_error.next = self.s3_error.q.val();
        self.res_tag.next = self.s3_tag.q.val();
    }
}
