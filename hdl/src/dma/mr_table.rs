//! Memory-region table and access check (`rnic_spec::mr`): a key, protection domain, address,
//! length and the access needed in; a verdict out `MR_CHECK_LATENCY` cycles later, one check per
//! cycle. The table is block RAM indexed by the key's low bits; the whole key must match. Zero
//! lengths pass unchecked (C9-88). Software writes slots through the `cfg_*` port; a slot
//! should not be rewritten while a check of it is in flight.
//!
//! The `fast_*` port answers in the same cycle from a small cache of regions (`CACHED` entries,
//! one per value of the key's low bits): each the region that backed the last check to pass
//! under a key with those bits (key, PD, bounds, access), as the table holds it now.
//! `fast_hit` says a key and range lie in its entry's region; that region's PD and access come
//! out beside (`fast_pd`, `fast_access`) for the caller to compare with its own (there: a
//! caller whose inputs here came through its own logic would close a combinational loop).
//! Anything else misses and goes through the table. An entry is filled only by a check no
//! table write overtook (every write marks the checks in flight stale) and emptied by a write
//! to any slot with its low bits; a fast check in a write's cycle misses. So a hit is always a
//! verdict the table would give — a QP's stream of WRITEs into its buffer, or a few QPs'
//! into theirs, skip the table's latency.

use crate::stream::c;
use rnic_spec::mr::AccessError;
use rust_hdl::prelude::*;

/// Cycles from a check's inputs to its verdict.
pub const MR_CHECK_LATENCY: usize = 3;
/// Slot index bits: 256 regions.
pub const MR_SLOT_BITS: usize = 8;
/// Regions the fast check keeps (a power of two: one per value of the key's low bits).
pub const CACHED: usize = 4;
const CACHED_BITS: usize = 2;

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
        /// Drive these from registers only (`fast_hit` follows them in the same cycle).
        pub fast_key: Signal<In, Bits<32>>,
        pub fast_addr: Signal<In, Bits<64>>,
        pub fast_len: Signal<In, Bits<32>>,
        /// The cached region holds the key and the range (not in a table write's cycle).
        pub fast_hit: Signal<Out, Bit>,
        /// The cached region's PD and access (registers).
        pub fast_pd: Signal<Out, Bits<16>>,
        pub fast_access: Signal<Out, Bits<4>>,

        ram: RAM<Bits<ENTRY_BITS>, MR_SLOT_BITS>,
        entry: MrEntry,
        addr72: Wide64,
        len72: Wide32,
        base72: Wide64,
        length72: Wide32,
        fast_addr72: Wide64,
        fast_len72: Wide32,
        cached: [CachedRegion; CACHED],
        fast_end: Signal<Local, Bits<72>>,
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
        /// No table write since the check's RAM read (1, 2: its stages).
        s1_fresh: DFF<Bit>,
        s2_fresh: DFF<Bit>,
        s2_key: DFF<Bits<32>>,
        s2_pd: DFF<Bits<16>>,
        s2_base: DFF<Bits<64>>,
        s2_access: DFF<Bits<4>>,
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
            s2_pd_ok, s2_access_ok, s2_lower_ok, s2_end, s2_limit, s2_tag, s3_valid, s3_error, s3_tag, s1_fresh, s2_fresh,
            s2_key, s2_pd, s2_base, s2_access
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
        // (A write in the read's own cycle counts: the read may have returned the old word.)
        self.s1_fresh.d.next = !self.cfg_wr.val();
        self.s2_fresh.d.next = self.s1_fresh.q.val() & !self.cfg_wr.val();
        self.s2_key.d.next = self.e_key_v.val();
        self.s2_pd.d.next = self.e_pd_v.val();
        self.s2_base.d.next = self.e_base.val();
        self.s2_access.d.next = self.e_access_v.val();

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
        // A passed check of a real region (not a zero length) no write overtook fills the cache.
        // (Into the entry of its key's low bits; a write to a slot with those bits empties it.)
        self.fast_addr72.x.next = self.fast_addr.val();
        self.fast_len72.x.next = self.fast_len.val();
        self.fast_end.next = self.fast_addr72.word.val() + self.fast_len72.word.val();
        self.fast_hit.next = false;
        self.fast_pd.next = self.cached[0].pd.val();
        self.fast_access.next = self.cached[0].access.val();
        for i in 0..CACHED {
            self.cached[i].clock.next = self.clock.val();
            self.cached[i].fill.next = self.s2_valid.q.val()
                & self.s2_fresh.q.val()
                & !self.s2_zero.q.val()
                & (self.error.val() == self.ok.val())
                & (self.s2_key.q.val().get_bits::<CACHED_BITS>(0).index() == i);
            self.cached[i].clear.next = self.cfg_wr.val() & (self.cfg_slot.val().get_bits::<CACHED_BITS>(0).index() == i);
            self.cached[i].fill_key.next = self.s2_key.q.val();
            self.cached[i].fill_pd.next = self.s2_pd.q.val();
            self.cached[i].fill_base.next = self.s2_base.q.val();
            self.cached[i].fill_limit.next = self.s2_limit.q.val();
            self.cached[i].fill_access.next = self.s2_access.q.val();
            self.cached[i].key.next = self.fast_key.val();
            self.cached[i].addr.next = self.fast_addr.val();
            self.cached[i].upto.next = self.fast_end.val();
            if self.fast_key.val().get_bits::<CACHED_BITS>(0).index() == i {
                self.fast_hit.next = self.cached[i].hit.val() & !self.cfg_wr.val();
                self.fast_pd.next = self.cached[i].pd.val();
                self.fast_access.next = self.cached[i].access.val();
            }
        }
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_error.d.next = self.error.val();
        self.s3_tag.d.next = self.s2_tag.q.val();
        self.res_valid.next = self.s3_valid.q.val();
        self.res_error.next = self.s3_error.q.val();
        self.res_tag.next = self.s3_tag.q.val();
    }
}

crate::hdl_block! {
    /// One region of the fast check's cache: filled with a region a check passed, emptied by
    /// `clear` (which wins); `hit` when a key and range [addr, upto) lie in it.
    pub struct CachedRegion {
        pub clock: Signal<In, Clock>,
        pub fill: Signal<In, Bit>,
        pub clear: Signal<In, Bit>,
        pub fill_key: Signal<In, Bits<32>>,
        pub fill_pd: Signal<In, Bits<16>>,
        pub fill_base: Signal<In, Bits<64>>,
        /// Base + length, 72 bits wide (a region may end at 2^64).
        pub fill_limit: Signal<In, Bits<72>>,
        pub fill_access: Signal<In, Bits<4>>,
        pub key: Signal<In, Bits<32>>,
        pub addr: Signal<In, Bits<64>>,
        /// addr + len, 72 bits wide (`end` is a Verilog keyword).
        pub upto: Signal<In, Bits<72>>,
        pub hit: Signal<Out, Bit>,
        pub pd: Signal<Out, Bits<16>>,
        pub access: Signal<Out, Bits<4>>,
        valid: DFF<Bit>,
        c_key: DFF<Bits<32>>,
        c_pd: DFF<Bits<16>>,
        c_base: DFF<Bits<64>>,
        c_limit: DFF<Bits<72>>,
        c_access: DFF<Bits<4>>,
    }
}

impl Logic for CachedRegion {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, c_key, c_pd, c_base, c_limit, c_access);
        if self.fill.val() {
            self.valid.d.next = true;
            self.c_key.d.next = self.fill_key.val();
            self.c_pd.d.next = self.fill_pd.val();
            self.c_base.d.next = self.fill_base.val();
            self.c_limit.d.next = self.fill_limit.val();
            self.c_access.d.next = self.fill_access.val();
        }
        if self.clear.val() {
            self.valid.d.next = false;
        }
        self.hit.next = self.valid.q.val()
            & (self.key.val() == self.c_key.q.val())
            & (self.addr.val() >= self.c_base.q.val())
            & (self.upto.val() <= self.c_limit.q.val());
        self.pd.next = self.c_pd.q.val();
        self.access.next = self.c_access.q.val();
    }
}
