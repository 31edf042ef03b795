//! ICRC check on the receive stream (IBTA Annex A17.3.3), one beat per cycle.
//!
//! The ICRC covers 8 bytes of 0xFF, then the IP packet up to its ICRC with the variant fields
//! set to ones. Instead of realigning the stream to the IP header, the Ethernet header bytes
//! are zeroed and the CRC starts from a register value rewound over that many zero bytes
//! (`crc32_rewind_zeros`), which is where the 0xFF prefix would have left it. The variant
//! fields sit at fixed positions in the first two beats for each of the four header layouts
//! (IPv4/IPv6, with/without 802.1Q), so they are forced to ones with constant masks built
//! from `rnic_spec::wire::crc::icrc_mask`. Coverage ends with the ICRC itself (the IP length
//! says where), and the check compares against the CRC residue.
//!
//! Only the first beat is parsed here (Ethernet type, VLAN tag, IP length field); frames that
//! are not IP get a meaningless verdict, which the receive pipeline ignores because an earlier
//! check drops them. Every frame gets exactly one verdict, `ICRC_LATENCY` cycles after its
//! last beat, even when coverage ended earlier (Ethernet padding) or the frame is truncated.

use crate::crc::Crc32Check;
use crate::stream::{BEAT_BYTES, bits512_from_bytes, c, numbers, wire16};
use rnic_spec::wire::crc::{crc32_rewind_zeros, crc32_update, icrc_mask, IpVersion, INIT};
use rnic_spec::wire::eth::{ETHERTYPE_IPV6, ETHERTYPE_OFF, ETHERTYPE_VLAN, ETH_LEN, ETH_VLAN_LEN, INNER_ETHERTYPE_OFF};
use rnic_spec::wire::ip::{IPV4_TOTAL_LEN_OFF, IPV6_LEN, IPV6_PAYLOAD_LEN_OFF};
use rust_hdl::prelude::*;

/// Cycles from a frame's last beat at the input to its verdict (header stage, masking stage,
/// the CRC).
pub const ICRC_LATENCY: usize = 2 + crate::crc::CRC_CHECK_LATENCY;

/// Header layouts, by index: 2 * vlan + ipv6.
const LAYOUTS: [(bool, IpVersion); 4] =
    [(false, IpVersion::V4), (false, IpVersion::V6), (true, IpVersion::V4), (true, IpVersion::V6)];



fn prefix_state(l2: usize) -> Constant<Bits<32>> {
    c::<32>(crc32_rewind_zeros(crc32_update(INIT, &[0xFF; 8]), l2) as u64)
}

/// CRC start register without / with VLAN: as if the 0xFF prefix had run just before the IP
/// header, with the Ethernet header bytes zeroed.
fn icrc_init() -> [Constant<Bits<32>>; 2] {
    [prefix_state(ETH_LEN), prefix_state(ETH_VLAN_LEN)]
}

/// Bits forced to one per layout (index 2 * vlan + ipv6), beat 0 and beat 1: index
/// 2 * layout + beat.
fn icrc_ones() -> [Constant<Bits<512>>; 8] {
    std::array::from_fn(|i| {
        let (vlan, version) = LAYOUTS[i / 2];
        let l2 = if vlan { ETH_VLAN_LEN } else { ETH_LEN };
        let mut two_beats = [0u8; 2 * BEAT_BYTES];
        icrc_mask(version, &mut two_beats[l2..]);
        let beat = i % 2;
        Constant::new(bits512_from_bytes(&two_beats[beat * BEAT_BYTES..(beat + 1) * BEAT_BYTES]))
    })
}

/// Bytes kept in beat 0 (those at and after the IP header), without / with VLAN.
fn icrc_keep_ip() -> [Constant<Bits<512>>; 2] {
    std::array::from_fn(|vlan| {
        let l2 = if vlan == 1 { ETH_VLAN_LEN } else { ETH_LEN };
        let bytes: Vec<u8> = (0..BEAT_BYTES).map(|i| if i >= l2 { 0xFF } else { 0 }).collect();
        Constant::new(bits512_from_bytes(&bytes))
    })
}

hdl_block! {
    /// What the ICRC covers of a frame's first two beats: the Ethernet header zeroed (the CRC
    /// starts from `init`, rewound over it) and the variant fields forced to ones, by layout.
    /// `identity()` changes nothing and starts from the plain CRC-32 register (for the FCS).
    pub struct IcrcMask {
        pub data: Signal<In, Bits<512>>,
        pub first: Signal<In, Bit>,
        pub second: Signal<In, Bit>,
        /// 2 * vlan + ipv6.
        pub layout: Signal<In, Bits<2>>,
        pub masked: Signal<Out, Bits<512>>,
        pub init: Signal<Out, Bits<32>>,

        ones: [Constant<Bits<512>>; 8] = icrc_ones(),
        keep_ip: [Constant<Bits<512>>; 2] = icrc_keep_ip(),
        init_by_vlan: [Constant<Bits<32>>; 2] = icrc_init(),
        layout_id: [Constant<Bits<2>>; 4] = numbers::<2, 4>(),
    }
}

impl IcrcMask {
    pub fn identity() -> Self {
        Self {
            ones: std::array::from_fn(|_| Constant::new(Bits::default())),
            keep_ip: std::array::from_fn(|_| Constant::new(!Bits::<512>::default())),
            init_by_vlan: [c::<32>(INIT as u64), c::<32>(INIT as u64)],
            ..Self::default()
        }
    }
}

impl Logic for IcrcMask {
    #[hdl_gen]
    fn update(&mut self) {
        self.masked.next = self.data.val();
        if self.first.val() {
            self.masked.next = self.data.val() & self.keep_ip[0].val();
            if self.layout.val().get_bit(1) {
                self.masked.next = self.data.val() & self.keep_ip[1].val();
            }
        }
        for k in 0..4 {
            if self.layout.val() == self.layout_id[k].val() {
                if self.first.val() {
                    self.masked.next = self.masked.val() | self.ones[k * 2].val();
                }
                if self.second.val() {
                    self.masked.next = self.masked.val() | self.ones[k * 2 + 1].val();
                }
            }
        }
        self.init.next = self.init_by_vlan[0].val();
        if self.layout.val().get_bit(1) {
            self.init.next = self.init_by_vlan[1].val();
        }
    }
}

hdl_block! {
    pub struct IcrcCheck {
        pub clock: Signal<In, Clock>,
        pub in_valid: Signal<In, Bit>,
        pub in_data: Signal<In, Bits<512>>,
        /// Valid bytes of the beat, 1..=64.
        pub in_count: Signal<In, Bits<7>>,
        pub in_last: Signal<In, Bit>,
        /// Pulses `ICRC_LATENCY` cycles after each frame's last beat.
        pub out_valid: Signal<Out, Bit>,
        pub out_ok: Signal<Out, Bit>,

        crc: Crc32Check,
        ethertype_off: Constant<Bits<9>> = c::<9>(8 * ETHERTYPE_OFF as u64),
        inner_type_off: Constant<Bits<9>> = c::<9>(8 * INNER_ETHERTYPE_OFF as u64),
        tpid: Constant<Bits<16>> = wire16(ETHERTYPE_VLAN),
        ipv6_type: Constant<Bits<16>> = wire16(ETHERTYPE_IPV6),
        /// Bit offset of the IP length field per layout.
        len_off: [Constant<Bits<9>>; 4] = std::array::from_fn(|i| {
            let (vlan, version) = LAYOUTS[i];
            let l2 = if vlan { ETH_VLAN_LEN } else { ETH_LEN };
            let field = match version {
                IpVersion::V4 => IPV4_TOTAL_LEN_OFF,
                IpVersion::V6 => IPV6_PAYLOAD_LEN_OFF,
            };
            c::<9>(8 * (l2 + field) as u64)
        }),
        /// Frame bytes before the IP length field counts from, per layout: the Ethernet header,
        /// plus the IPv6 fixed header that its payload length leaves out.
        len_base: [Constant<Bits<17>>; 4] = std::array::from_fn(|i| {
            let (vlan, version) = LAYOUTS[i];
            let l2 = if vlan { ETH_VLAN_LEN } else { ETH_LEN };
            c::<17>((l2 + if version == IpVersion::V6 { IPV6_LEN } else { 0 }) as u64)
        }),
        mask: IcrcMask,
        low16: Constant<Bits<17>> = c::<17>(0xFFFF),
        low8: Constant<Bits<17>> = c::<17>(0xFF),
        beat17: Constant<Bits<17>> = c::<17>(BEAT_BYTES as u64),
        beat7: Constant<Bits<7>> = c::<7>(BEAT_BYTES as u64),
        layout_id: [Constant<Bits<2>>; 3] = numbers::<2, 3>(),

        in_frame: DFF<Bit>,
        next_is_second: DFF<Bit>,
        ctx_layout: DFF<Bits<2>>,
        ctx_end: DFF<Bits<17>>,
        // Stage A: the beat with its frame's layout and coverage end.
        a_valid: DFF<Bit>,
        a_first: DFF<Bit>,
        a_second: DFF<Bit>,
        a_last: DFF<Bit>,
        a_data: DFF<Bits<512>>,
        a_count: DFF<Bits<7>>,
        a_layout: DFF<Bits<2>>,
        a_end: DFF<Bits<17>>,
        // Stage M bookkeeping: coverage bytes left, coverage finished.
        left: DFF<Bits<17>>,
        ended: DFF<Bit>,
        // Stage M: the masked beat for the CRC.
        m_valid: DFF<Bit>,
        m_first: DFF<Bit>,
        m_last: DFF<Bit>,
        m_init: DFF<Bits<32>>,
        m_data: DFF<Bits<512>>,
        m_count: DFF<Bits<7>>,
        last_pipe: [DFF<Bit>; ICRC_LATENCY],
        hold_ok: DFF<Bit>,

        first: Signal<Local, Bit>,
        vlan0: Signal<Local, Bit>,
        v6_0: Signal<Local, Bit>,
        layout0: Signal<Local, Bits<2>>,
        len_raw: Signal<Local, Bits<17>>,
        base_len: Signal<Local, Bits<17>>,
        remaining: Signal<Local, Bits<17>>,
        cover_last: Signal<Local, Bit>,
        count: Signal<Local, Bits<7>>,
        feed: Signal<Local, Bit>,
    }
}

// `last_pipe[5]` below is the last of ICRC_LATENCY stages (index expressions must be literals).
const _: () = assert!(ICRC_LATENCY == 6);

impl Logic for IcrcCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_frame, next_is_second, ctx_layout, ctx_end, a_valid, a_first, a_second, a_last, a_data, a_count,
            a_layout, a_end, left, ended, m_valid, m_first, m_last, m_init, m_data, m_count, hold_ok
        );
        for i in 0..ICRC_LATENCY {
            self.last_pipe[i].clock.next = self.clock.val();
        }
        for i in 1..ICRC_LATENCY {
            self.last_pipe[i].d.next = self.last_pipe[i - 1].q.val();
        }

        // Stage A. On a frame's first beat: its layout, and where the ICRC coverage ends
        // (Ethernet header + IP length, ICRC included); later beats reuse them.
        self.first.next = !self.in_frame.q.val();
        self.vlan0.next = self.in_data.val().get_bits::<16>(self.ethertype_off.val().index()) == self.tpid.val();
        self.v6_0.next = self.in_data.val().get_bits::<16>(self.ethertype_off.val().index()) == self.ipv6_type.val();
        if self.vlan0.val() {
            self.v6_0.next = self.in_data.val().get_bits::<16>(self.inner_type_off.val().index()) == self.ipv6_type.val();
        }
        // Layout index: 2 * vlan + ipv6.
        self.layout0.next = self.layout_id[0].val();
        if self.v6_0.val() {
            self.layout0.next = self.layout_id[1].val();
        }
        if self.vlan0.val() {
            self.layout0.next = self.layout0.val() | self.layout_id[2].val();
        }
        self.len_raw.next = self.in_data.val().get_bits::<17>(self.len_off[0].val().index());
        self.base_len.next = self.len_base[0].val();
        for k in 1..4 {
            if self.layout0.val().index() == k {
                self.len_raw.next = self.in_data.val().get_bits::<17>(self.len_off[k].val().index());
                self.base_len.next = self.len_base[k].val();
            }
        }
        self.a_valid.d.next = self.in_valid.val();
        self.a_first.d.next = self.first.val();
        self.a_second.d.next = !self.first.val() & self.next_is_second.q.val();
        self.a_last.d.next = self.in_last.val();
        self.a_data.d.next = self.in_data.val();
        self.a_count.d.next = self.in_count.val();
        self.a_layout.d.next = self.ctx_layout.q.val();
        self.a_end.d.next = self.ctx_end.q.val();
        if self.first.val() {
            self.a_layout.d.next = self.layout0.val();
            // The length is big-endian on the wire: swap its two bytes.
            self.a_end.d.next = ((self.len_raw.val() & self.low8.val()) << 8)
                + ((self.len_raw.val() & self.low16.val()) >> 8)
                + self.base_len.val();
        }
        if self.in_valid.val() {
            self.in_frame.d.next = !self.in_last.val();
            self.next_is_second.d.next = self.first.val() & !self.in_last.val();
            if self.first.val() {
                self.ctx_layout.d.next = self.layout0.val();
                self.ctx_end.d.next = ((self.len_raw.val() & self.low8.val()) << 8)
                    + ((self.len_raw.val() & self.low16.val()) >> 8)
                    + self.base_len.val();
            }
        }

        // Stage M: how many bytes of this beat the coverage takes; masking.
        self.remaining.next = self.left.q.val();
        if self.a_first.q.val() {
            self.remaining.next = self.a_end.q.val();
        }
        self.cover_last.next = (self.remaining.val() <= self.beat17.val()) | self.a_last.q.val();
        self.count.next = self.beat7.val();
        if self.remaining.val() < self.beat17.val() {
            self.count.next = self.remaining.val().get_bits::<7>(0);
        }
        if self.a_last.q.val() & (self.a_count.q.val() < self.count.val()) {
            self.count.next = self.a_count.q.val();
        }
        self.feed.next = self.a_valid.q.val() & (self.a_first.q.val() | !self.ended.q.val());
        self.mask.data.next = self.a_data.q.val();
        self.mask.first.next = self.a_first.q.val();
        self.mask.second.next = self.a_second.q.val();
        self.mask.layout.next = self.a_layout.q.val();
        if self.a_valid.q.val() {
            self.left.d.next = self.remaining.val() - self.beat17.val();
            self.ended.d.next = (self.ended.q.val() & !self.a_first.q.val()) | (self.feed.val() & self.cover_last.val());
        }
        self.m_valid.d.next = self.feed.val();
        self.m_first.d.next = self.a_first.q.val();
        self.m_last.d.next = self.cover_last.val();
        self.m_init.d.next = self.mask.init.val();
        self.m_data.d.next = self.mask.masked.val();
        self.m_count.d.next = self.count.val();

        self.crc.clock.next = self.clock.val();
        self.crc.in_valid.next = self.m_valid.q.val();
        self.crc.in_first.next = self.m_first.q.val();
        self.crc.in_last.next = self.m_last.q.val();
        self.crc.in_init.next = self.m_init.q.val();
        self.crc.in_data.next = self.m_data.q.val();
        self.crc.in_count.next = self.m_count.q.val();

        // One verdict per frame at a fixed distance from its last beat.
        self.last_pipe[0].d.next = self.in_valid.val() & self.in_last.val();
        if self.crc.out_valid.val() {
            self.hold_ok.d.next = self.crc.out_ok.val();
        }
        self.out_valid.next = self.last_pipe[5].q.val();
        self.out_ok.next = self.hold_ok.q.val();
        if self.crc.out_valid.val() {
            self.out_ok.next = self.crc.out_ok.val();
        }
    }
}
