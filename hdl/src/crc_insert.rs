//! Fills a CRC into a frame on its way out: the ICRC of a RoCE v2 packet or the Ethernet FCS.
//!
//! The frame arrives with room for the CRC already in it (four zero bytes at `end`, so frame
//! lengths are known when the headers are built and nothing needs to stall here). The CRC
//! covers the bytes before `end` ([`Crc32Gen`], one beat per cycle); the beats wait in a delay
//! line as long as the CRC takes, and the beat holding `end` (and the next one, when the CRC
//! straddles two beats) gets the CRC ORed in, least significant byte first.
//!
//! ICRC mode covers from the IP header: as in [`crate::roce::icrc::IcrcCheck`], the Ethernet
//! header bytes are zeroed and the CRC starts from a rewound register, and the variant fields
//! are forced to ones for the CRC only; the frame keeps its real values. FCS mode covers the
//! whole frame from a plain CRC-32 start.
//!
//! The block never stalls: what goes in comes out `CRC_INSERT_LATENCY` cycles later, gaps
//! included. Per-frame inputs (`in_end`, `in_layout`, `in_enable`) are read on a frame's first
//! beat; `in_tag` rides along with every beat for the next block.

use crate::crc::{Crc32Gen, CRC_GEN_LATENCY};
use crate::roce::icrc::IcrcMask;
use crate::stream::{c, BEAT_BYTES};
use rust_hdl::prelude::*;

/// Cycles from a beat at the input to the same beat at the output.
pub const CRC_INSERT_LATENCY: usize = 3 + CRC_GEN_LATENCY;

/// Width of the byte position of the CRC in a frame; the top bit tells a position behind the
/// current beat (negative), so frames stay below 16 KiB.
pub const END_BITS: usize = 15;

crate::pack_word! {
    /// The CRC in the low 32 bits of a beat-wide word, to shift into its lanes.
    lsb_first CrcWord: 512 { crc: 32 }
}

crate::hdl_block! {
    pub struct CrcInsert {
        pub clock: Signal<In, Clock>,
        pub in_valid: Signal<In, Bit>,
        pub in_data: Signal<In, Bits<512>>,
        /// Valid bytes of the beat, 1..=64.
        pub in_count: Signal<In, Bits<7>>,
        pub in_first: Signal<In, Bit>,
        pub in_last: Signal<In, Bit>,
        pub in_tag: Signal<In, Bits<16>>,
        /// First beat: byte position of the CRC in the frame (its four bytes are zero).
        pub in_end: Signal<In, Bits<END_BITS>>,
        /// First beat, ICRC mode: header layout, 2 * vlan + ipv6.
        pub in_layout: Signal<In, Bits<2>>,
        /// First beat: fill in the CRC (otherwise the frame passes unchanged).
        pub in_enable: Signal<In, Bit>,
        pub out_valid: Signal<Out, Bit>,
        pub out_data: Signal<Out, Bits<512>>,
        pub out_count: Signal<Out, Bits<7>>,
        pub out_first: Signal<Out, Bit>,
        pub out_last: Signal<Out, Bit>,
        pub out_tag: Signal<Out, Bits<16>>,

        gen: Crc32Gen,
        crc_word: CrcWord,
        mask: IcrcMask,
        beat15: Constant<Bits<15>> = c::<15>(BEAT_BYTES as u64),
        zero15: Constant<Bits<15>> = c::<15>(0),
        /// Positions from `end`: -3..=-1 are encoded as 2^15 - 3 ..= 2^15 - 1.
        spill_min: Constant<Bits<15>> = c::<15>((1 << 15) - 3),
        beat7: Constant<Bits<7>> = c::<7>(BEAT_BYTES as u64),
        byte_to_bit: Constant<Bits<10>> = c::<10>(3),

        // Per-frame context, set on the first beat.
        ctx_rel: DFF<Bits<15>>,
        ctx_layout: DFF<Bits<2>>,
        ctx_enable: DFF<Bit>,
        ctx_second: DFF<Bit>,
        // Stage A: the beat with `rel`, the CRC position relative to the beat's byte 0.
        a_valid: DFF<Bit>,
        a_data: DFF<Bits<512>>,
        a_count: DFF<Bits<7>>,
        a_first: DFF<Bit>,
        a_second: DFF<Bit>,
        a_last: DFF<Bit>,
        a_tag: DFF<Bits<16>>,
        a_rel: DFF<Bits<15>>,
        a_layout: DFF<Bits<2>>,
        a_enable: DFF<Bit>,
        // Stage M: masked beat for the CRC.
        m_valid: DFF<Bit>,
        m_first: DFF<Bit>,
        m_last: DFF<Bit>,
        m_init: DFF<Bits<32>>,
        m_data: DFF<Bits<512>>,
        m_count: DFF<Bits<7>>,
        // Delay line, from stage A, `CRC_GEN_LATENCY + 1` deep.
        d_valid: [DFF<Bit>; CRC_GEN_LATENCY + 1],
        d_data: [DFF<Bits<512>>; CRC_GEN_LATENCY + 1],
        d_count: [DFF<Bits<7>>; CRC_GEN_LATENCY + 1],
        d_first: [DFF<Bit>; CRC_GEN_LATENCY + 1],
        d_last: [DFF<Bit>; CRC_GEN_LATENCY + 1],
        d_tag: [DFF<Bits<16>>; CRC_GEN_LATENCY + 1],
        d_rel: [DFF<Bits<15>>; CRC_GEN_LATENCY + 1],
        d_enable: [DFF<Bit>; CRC_GEN_LATENCY + 1],
        hold_crc: DFF<Bits<32>>,
        o_valid: DFF<Bit>,
        o_data: DFF<Bits<512>>,
        o_count: DFF<Bits<7>>,
        o_first: DFF<Bit>,
        o_last: DFF<Bit>,
        o_tag: DFF<Bits<16>>,

        rel: Signal<Local, Bits<15>>,
        layout: Signal<Local, Bits<2>>,
        enable: Signal<Local, Bit>,
        covered: Signal<Local, Bit>,
        cov_count: Signal<Local, Bits<7>>,
        crc: Signal<Local, Bits<32>>,
        here: Signal<Local, Bits<15>>,
        shift: Signal<Local, Bits<10>>,
        behind: Signal<Local, Bits<15>>,
        spill_shift: Signal<Local, Bits<10>>,
        out: Signal<Local, Bits<512>>,
    }
}

impl CrcInsert {
    /// ICRC mode (the default): covers from the IP header, variant fields masked.
    pub fn icrc() -> Self {
        Self::default()
    }

    /// FCS mode: covers the whole frame, nothing masked.
    pub fn fcs() -> Self {
        Self { mask: IcrcMask::identity(), ..Self::default() }
    }
}

// `d_*[9]` below is the last delay stage (index expressions must be literals).
const _: () = assert!(CRC_GEN_LATENCY + 1 == 10);

impl Logic for CrcInsert {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ctx_rel, ctx_layout, ctx_enable, ctx_second, a_valid, a_data, a_count, a_first, a_second,
            a_last, a_tag, a_rel, a_layout, a_enable, m_valid, m_first, m_last, m_init, m_data, m_count, hold_crc,
            o_valid, o_data, o_count, o_first, o_last, o_tag
        );
        for i in 0..10 {
            self.d_valid[i].clock.next = self.clock.val();
            self.d_data[i].clock.next = self.clock.val();
            self.d_count[i].clock.next = self.clock.val();
            self.d_first[i].clock.next = self.clock.val();
            self.d_last[i].clock.next = self.clock.val();
            self.d_tag[i].clock.next = self.clock.val();
            self.d_rel[i].clock.next = self.clock.val();
            self.d_enable[i].clock.next = self.clock.val();
        }

        // Stage A: per-frame context; `rel` counts down by a beat per beat.
        self.rel.next = self.ctx_rel.q.val();
        self.layout.next = self.ctx_layout.q.val();
        self.enable.next = self.ctx_enable.q.val();
        if self.in_first.val() {
            self.rel.next = self.in_end.val();
            self.layout.next = self.in_layout.val();
            self.enable.next = self.in_enable.val();
        }
        if self.in_valid.val() {
            self.ctx_rel.d.next = self.rel.val() - self.beat15.val();
            self.ctx_layout.d.next = self.layout.val();
            self.ctx_enable.d.next = self.enable.val();
            self.ctx_second.d.next = self.in_first.val();
        }
        self.a_valid.d.next = self.in_valid.val();
        self.a_data.d.next = self.in_data.val();
        self.a_count.d.next = self.in_count.val();
        self.a_first.d.next = self.in_first.val();
        self.a_second.d.next = !self.in_first.val() & self.ctx_second.q.val();
        self.a_last.d.next = self.in_last.val();
        self.a_tag.d.next = self.in_tag.val();
        self.a_rel.d.next = self.rel.val();
        self.a_layout.d.next = self.layout.val();
        self.a_enable.d.next = self.enable.val();

        // Stage M: the covered bytes of the beat, masked for the CRC. A beat is covered while
        // the CRC position lies beyond its byte 0 (rel > 0, not a wrapped negative).
        self.covered.next = (self.a_rel.q.val() != self.zero15.val()) & !self.a_rel.q.val().get_bit(14);
        self.cov_count.next = self.beat7.val();
        if self.a_rel.q.val() < self.beat15.val() {
            self.cov_count.next = self.a_rel.q.val().get_bits::<7>(0);
        }
        self.mask.data.next = self.a_data.q.val();
        self.mask.first.next = self.a_first.q.val();
        self.mask.second.next = self.a_second.q.val();
        self.mask.layout.next = self.a_layout.q.val();
        self.m_valid.d.next = self.a_valid.q.val() & self.a_enable.q.val() & self.covered.val();
        self.m_first.d.next = self.a_first.q.val();
        self.m_last.d.next = self.a_rel.q.val() <= self.beat15.val();
        self.m_init.d.next = self.mask.init.val();
        self.m_data.d.next = self.mask.masked.val();
        self.m_count.d.next = self.cov_count.val();
        self.gen.clock.next = self.clock.val();
        self.gen.in_valid.next = self.m_valid.q.val();
        self.gen.in_first.next = self.m_first.q.val();
        self.gen.in_last.next = self.m_last.q.val();
        self.gen.in_init.next = self.m_init.q.val();
        self.gen.in_data.next = self.m_data.q.val();
        self.gen.in_count.next = self.m_count.q.val();

        // Delay line.
        self.d_valid[0].d.next = self.a_valid.q.val();
        self.d_data[0].d.next = self.a_data.q.val();
        self.d_count[0].d.next = self.a_count.q.val();
        self.d_first[0].d.next = self.a_first.q.val();
        self.d_last[0].d.next = self.a_last.q.val();
        self.d_tag[0].d.next = self.a_tag.q.val();
        self.d_rel[0].d.next = self.a_rel.q.val();
        self.d_enable[0].d.next = self.a_enable.q.val();
        for i in 1..10 {
            self.d_valid[i].d.next = self.d_valid[i - 1].q.val();
            self.d_data[i].d.next = self.d_data[i - 1].q.val();
            self.d_count[i].d.next = self.d_count[i - 1].q.val();
            self.d_first[i].d.next = self.d_first[i - 1].q.val();
            self.d_last[i].d.next = self.d_last[i - 1].q.val();
            self.d_tag[i].d.next = self.d_tag[i - 1].q.val();
            self.d_rel[i].d.next = self.d_rel[i - 1].q.val();
            self.d_enable[i].d.next = self.d_enable[i - 1].q.val();
        }

        // Insert: the CRC's bytes that fall in this beat.
        self.crc.next = self.hold_crc.q.val();
        if self.gen.out_valid.val() {
            self.crc.next = self.gen.out_crc.val();
            self.hold_crc.d.next = self.gen.out_crc.val();
        }
        self.crc_word.crc.next = self.crc.val();
        self.here.next = self.d_rel[9].q.val();
        self.out.next = self.d_data[9].q.val();
        self.shift.next = self.here.val().get_bits::<10>(0) << self.byte_to_bit.val();
        self.behind.next = self.zero15.val() - self.here.val();
        self.spill_shift.next = self.behind.val().get_bits::<10>(0) << self.byte_to_bit.val();
        if self.d_enable[9].q.val() {
            if !self.here.val().get_bit(14) & (self.here.val() < self.beat15.val()) {
                self.out.next = self.out.val() | (self.crc_word.word.val() << self.shift.val());
            }
            if self.here.val() >= self.spill_min.val() {
                self.out.next = self.out.val()
                    | (self.crc_word.word.val() >> self.spill_shift.val());
            }
        }
        self.o_valid.d.next = self.d_valid[9].q.val();
        self.o_data.d.next = self.out.val();
        self.o_count.d.next = self.d_count[9].q.val();
        self.o_first.d.next = self.d_first[9].q.val();
        self.o_last.d.next = self.d_last[9].q.val();
        self.o_tag.d.next = self.d_tag[9].q.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_data.next = self.o_data.q.val();
        self.out_count.next = self.o_count.q.val();
        self.out_first.next = self.o_first.q.val();
        self.out_last.next = self.o_last.q.val();
        self.out_tag.next = self.o_tag.q.val();
    }
}
