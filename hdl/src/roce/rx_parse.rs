//! Receive header parser: Ethernet / 802.1Q, IPv4 / IPv6, UDP, BTH and the extended transport
//! headers, from the first two beats of a frame, in a 6-stage pipeline.
//!
//! The receive pipeline hands over the first 128 bytes of each frame (`in_h0`, `in_h1`) once
//! they are known. Every header starts at one of a few fixed offsets (no VLAN / VLAN, IPv4 /
//! IPv6), so each layer's window is cut out with constant shifts and byte-reversed, after which
//! every big-endian field is a plain constant slice (`stream::field_at`). Offsets, EtherTypes,
//! the UDP port, the opcode table and the drop-reason codes all come from `rnic-spec`.
//!
//! Stages: 0 input registers; 1 layer windows; 2 field extraction and the IPv4 checksum sum;
//! 3 opcode lookup, checksum fold, IP lengths; 4 the header checks; 5 outputs. The checks that
//! need the frame length (IP length) or the end of the frame (ICRC, FCS) are left to the
//! receive pipeline, which merges them in the specified order: `reason_pre` comes before the IP
//! length check, `reason_post` after it (0 = passed).

use crate::stream::{ByteReverse, c, field_at, numbers, wire16};
use rnic_spec::wire::eth::{
    ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_OFF, ETHERTYPE_VLAN, ETH_LEN, ETH_VLAN_LEN, INNER_ETHERTYPE_OFF,
    VLAN_TCI_OFF,
};
use rnic_spec::wire::ib::*;
use rnic_spec::wire::ip::*;
use rnic_spec::wire::opcode::{ExtHeader, OPCODES};
use rnic_spec::wire::rx::DropReason;
use rnic_spec::wire::udp::{UDP_DST_PORT_OFF, UDP_LEN, UDP_LENGTH_OFF, UDP_SRC_PORT_OFF};
use rnic_spec::wire::{MAX_PAYLOAD, ROCE_UDP_PORT};
use rust_hdl::prelude::*;

/// Cycles from `in_valid` to `out_valid`.
pub const PARSE_LATENCY: usize = 6;
/// Rows of the opcode table.
pub const NUM_OPCODES: usize = 26;
/// Distinct positions of ImmDt after the BTH across the opcode table.
const IMM_POSITIONS: usize = 3;

/// Header layouts, by index: 2 * vlan + ipv6.
fn layout(i: usize) -> (usize, usize) {
    let l2 = if i >= 2 { ETH_VLAN_LEN } else { ETH_LEN };
    let l3 = if i % 2 == 1 { IPV6_LEN } else { IPV4_LEN };
    (l2, l3)
}



/// Offsets of ImmDt from the end of the BTH that the opcode table uses.
fn imm_positions() -> [usize; IMM_POSITIONS] {
    let mut p: Vec<usize> = OPCODES.iter().filter_map(|o| o.ext_offset(ExtHeader::ImmDt)).collect();
    p.sort();
    p.dedup();
    assert!(!p.is_empty() && p.len() <= IMM_POSITIONS, "ImmDt positions {p:?}");
    std::array::from_fn(|i| p[i.min(p.len() - 1)])
}

/// Transport window: UDP at byte 0, BTH at 8, extended headers at 20.
const BTH_AT: usize = UDP_LEN;
const EXT_AT: usize = UDP_LEN + BTH_LEN;

hdl_block! {
    pub struct RxHeaderParse {
        pub clock: Signal<In, Clock>,
        /// The first two beats of a frame are complete (`in_h1` is zero for one-beat frames).
        pub in_valid: Signal<In, Bit>,
        pub in_h0: Signal<In, Bits<512>>,
        pub in_h1: Signal<In, Bits<512>>,

        pub out_valid: Signal<Out, Bit>,
        pub out_vlan: Signal<Out, Bit>,
        pub out_ipv6: Signal<Out, Bit>,
        pub out_eth_dst: Signal<Out, Bits<48>>,
        pub out_eth_src: Signal<Out, Bits<48>>,
        pub out_vlan_tci: Signal<Out, Bits<16>>,
        pub out_dscp: Signal<Out, Bits<6>>,
        pub out_ecn: Signal<Out, Bits<2>>,
        pub out_ttl: Signal<Out, Bits<8>>,
        /// IPv4 addresses sit in the low 32 bits.
        pub out_ip_src: Signal<Out, Bits<128>>,
        pub out_ip_dst: Signal<Out, Bits<128>>,
        pub out_udp_src_port: Signal<Out, Bits<16>>,
        pub out_opcode: Signal<Out, Bits<8>>,
        /// BTH byte 1: SE, M, PadCnt, TVer.
        pub out_bth_flags: Signal<Out, Bits<8>>,
        pub out_pkey: Signal<Out, Bits<16>>,
        pub out_fecn: Signal<Out, Bit>,
        pub out_becn: Signal<Out, Bit>,
        pub out_dest_qp: Signal<Out, Bits<24>>,
        pub out_ack_req: Signal<Out, Bit>,
        pub out_psn: Signal<Out, Bits<24>>,
        /// RETH / AtomicETH virtual address and R_Key.
        pub out_va: Signal<Out, Bits<64>>,
        pub out_rkey: Signal<Out, Bits<32>>,
        pub out_dma_len: Signal<Out, Bits<32>>,
        pub out_swap_add: Signal<Out, Bits<64>>,
        pub out_compare: Signal<Out, Bits<64>>,
        pub out_aeth_syndrome: Signal<Out, Bits<8>>,
        pub out_aeth_msn: Signal<Out, Bits<24>>,
        pub out_atomic_ack: Signal<Out, Bits<64>>,
        pub out_imm: Signal<Out, Bits<32>>,
        pub out_ieth_rkey: Signal<Out, Bits<32>>,
        pub out_qkey: Signal<Out, Bits<32>>,
        pub out_src_qp: Signal<Out, Bits<24>>,
        /// End of the IP packet in frame bytes (Ethernet header + IP length).
        pub out_ip_end: Signal<Out, Bits<17>>,
        /// The IP length is shorter than the IP header.
        pub out_ip_short: Signal<Out, Bit>,
        pub out_reason_pre: Signal<Out, Bits<5>>,
        pub out_reason_post: Signal<Out, Bits<5>>,
        pub out_payload_len: Signal<Out, Bits<17>>,
        /// Where the payload starts in the frame, for the realigner: whether it starts in the
        /// second beat, and the bit shifts that bring it to byte 0 (right for the beat it
        /// starts in, left for the next).
        pub out_payload_beat1: Signal<Out, Bit>,
        pub out_shift_right: Signal<Out, Bits<10>>,
        pub out_shift_left: Signal<Out, Bits<10>>,
        /// Frame byte just past the payload.
        pub out_payload_end: Signal<Out, Bits<17>>,
        /// The headers say the frame is not RoCE v2: it goes to the host path.
        pub out_host: Signal<Out, Bit>,
        /// The headers pass and the packet carries payload bytes.
        pub out_emit: Signal<Out, Bit>,

        eth_rev: ByteReverse,
        ip_rev: ByteReverse,
        t_rev: ByteReverse,

        ethertype_off: Constant<Bits<9>> = c::<9>(8 * ETHERTYPE_OFF as u64),
        inner_type_off: Constant<Bits<9>> = c::<9>(8 * INNER_ETHERTYPE_OFF as u64),
        tpid: Constant<Bits<16>> = wire16(ETHERTYPE_VLAN),
        ipv4_type: Constant<Bits<16>> = wire16(ETHERTYPE_IPV4),
        ipv6_type: Constant<Bits<16>> = wire16(ETHERTYPE_IPV6),
        /// Shifts that bring the IP header to byte 0: [h0 right, h1 left] per VLAN.
        ip_shift: [Constant<Bits<10>>; 4] = [
            c::<10>(8 * ETH_LEN as u64), c::<10>(8 * (64 - ETH_LEN) as u64),
            c::<10>(8 * ETH_VLAN_LEN as u64), c::<10>(8 * (64 - ETH_VLAN_LEN) as u64),
        ],
        /// Shifts that bring the UDP header to byte 0, per layout: [h0 right, h1 left].
        t_shift: [Constant<Bits<10>>; 8] = std::array::from_fn(|i| {
            let (l2, l3) = layout(i / 2);
            if i % 2 == 0 { c::<10>(8 * (l2 + l3) as u64) } else { c::<10>(8 * (64 - l2 - l3) as u64) }
        }),
        layout_id: [Constant<Bits<2>>; 3] = numbers::<2, 3>(),

        f_eth_dst: Constant<Bits<9>> = field_at(0, 6),
        f_eth_src: Constant<Bits<9>> = field_at(6, 6),
        f_tci: Constant<Bits<9>> = field_at(VLAN_TCI_OFF, 2),
        f_v4_vihl: Constant<Bits<9>> = field_at(IPV4_VERSION_IHL_OFF, 1),
        f_v4_tos: Constant<Bits<9>> = field_at(IPV4_TOS_OFF, 1),
        f_v4_len: Constant<Bits<9>> = field_at(IPV4_TOTAL_LEN_OFF, 2),
        f_v4_frag: Constant<Bits<9>> = field_at(IPV4_FLAGS_OFF, 2),
        f_v4_ttl: Constant<Bits<9>> = field_at(IPV4_TTL_OFF, 1),
        f_v4_proto: Constant<Bits<9>> = field_at(IPV4_PROTOCOL_OFF, 1),
        f_v4_src: Constant<Bits<9>> = field_at(IPV4_SRC_OFF, 4),
        f_v4_dst: Constant<Bits<9>> = field_at(IPV4_DST_OFF, 4),
        f_v6_word0: Constant<Bits<9>> = field_at(IPV6_WORD0_OFF, 4),
        f_v6_len: Constant<Bits<9>> = field_at(IPV6_PAYLOAD_LEN_OFF, 2),
        f_v6_next: Constant<Bits<9>> = field_at(IPV6_NEXT_HEADER_OFF, 1),
        f_v6_hops: Constant<Bits<9>> = field_at(IPV6_HOP_LIMIT_OFF, 1),
        f_v6_src: Constant<Bits<9>> = field_at(IPV6_SRC_OFF, 16),
        f_v6_dst: Constant<Bits<9>> = field_at(IPV6_DST_OFF, 16),
        /// The ten 16-bit words of an IPv4 header, raw lanes (the checksum is byte-order free).
        word: [Constant<Bits<9>>; 10] = std::array::from_fn(|i| c::<9>(16 * i as u64)),
        f_sport: Constant<Bits<9>> = field_at(UDP_SRC_PORT_OFF, 2),
        f_dport: Constant<Bits<9>> = field_at(UDP_DST_PORT_OFF, 2),
        f_ulen: Constant<Bits<9>> = field_at(UDP_LENGTH_OFF, 2),
        f_opcode: Constant<Bits<9>> = field_at(BTH_AT + BTH_OPCODE_OFF, 1),
        f_flags: Constant<Bits<9>> = field_at(BTH_AT + BTH_FLAGS_OFF, 1),
        f_pkey: Constant<Bits<9>> = field_at(BTH_AT + BTH_PKEY_OFF, 2),
        f_ecnb: Constant<Bits<9>> = field_at(BTH_AT + BTH_ECN_OFF, 1),
        f_dqp: Constant<Bits<9>> = field_at(BTH_AT + BTH_DEST_QP_OFF, 3),
        f_ackb: Constant<Bits<9>> = field_at(BTH_AT + BTH_ACK_REQ_OFF, 1),
        f_psn: Constant<Bits<9>> = field_at(BTH_AT + BTH_PSN_OFF, 3),
        f_va: Constant<Bits<9>> = field_at(EXT_AT + RETH_VA_OFF, 8),
        f_rkey: Constant<Bits<9>> = field_at(EXT_AT + RETH_RKEY_OFF, 4),
        f_dlen: Constant<Bits<9>> = field_at(EXT_AT + RETH_DMA_LEN_OFF, 4),
        f_swap: Constant<Bits<9>> = field_at(EXT_AT + ATOMIC_SWAP_ADD_OFF, 8),
        f_cmp: Constant<Bits<9>> = field_at(EXT_AT + ATOMIC_COMPARE_OFF, 8),
        f_syn: Constant<Bits<9>> = field_at(EXT_AT + AETH_SYNDROME_OFF, 1),
        f_msn: Constant<Bits<9>> = field_at(EXT_AT + AETH_MSN_OFF, 3),
        f_aack: Constant<Bits<9>> = field_at(EXT_AT + AETH_LEN, 8),
        f_ieth: Constant<Bits<9>> = field_at(EXT_AT, 4),
        f_qkey: Constant<Bits<9>> = field_at(EXT_AT + DETH_QKEY_OFF, 4),
        f_sqp: Constant<Bits<9>> = field_at(EXT_AT + DETH_SRC_QP_OFF, 3),
        f_imm: [Constant<Bits<9>>; IMM_POSITIONS] = imm_positions().map(|p| field_at(EXT_AT + p, 4)),

        op_code: [Constant<Bits<8>>; NUM_OPCODES] = std::array::from_fn(|i| c::<8>(OPCODES[i].code as u64)),
        op_ext_len: [Constant<Bits<17>>; NUM_OPCODES] = std::array::from_fn(|i| c::<17>(OPCODES[i].ext_len() as u64)),
        op_payload: [Constant<Bit>; NUM_OPCODES] = std::array::from_fn(|i| Constant::new(OPCODES[i].payload)),
        /// Index into `f_imm` of the opcode's ImmDt (0 when it has none).
        op_imm: [Constant<Bits<2>>; NUM_OPCODES] = std::array::from_fn(|i| {
            let pos = imm_positions();
            let at = OPCODES[i].ext_offset(ExtHeader::ImmDt).map_or(0, |o| pos.iter().position(|&p| p == o).expect("listed"));
            c::<2>(at as u64)
        }),
        imm_id: [Constant<Bits<2>>; IMM_POSITIONS] = numbers::<2, IMM_POSITIONS>(),

        low16: Constant<Bits<17>> = c::<17>(0xFFFF),
        low32_128: Constant<Bits<128>> = Constant::new(bits::<128>(0xFFFF_FFFF)),
        pad_values: [Constant<Bits<17>>; 4] = numbers::<17, 4>(),
        low16_20: Constant<Bits<20>> = c::<20>(0xFFFF),
        ones16_20: Constant<Bits<20>> = c::<20>(0xFFFF),
        l2_len: [Constant<Bits<17>>; 2] = [c::<17>(ETH_LEN as u64), c::<17>(ETH_VLAN_LEN as u64)],
        l3_len: [Constant<Bits<17>>; 2] = [c::<17>(IPV4_LEN as u64), c::<17>(IPV6_LEN as u64)],
        l2_len10: [Constant<Bits<10>>; 2] = [c::<10>(ETH_LEN as u64), c::<10>(ETH_VLAN_LEN as u64)],
        l3_len10: [Constant<Bits<10>>; 2] = [c::<10>(IPV4_LEN as u64), c::<10>(IPV6_LEN as u64)],
        transport_len10: Constant<Bits<10>> = c::<10>((UDP_LEN + BTH_LEN) as u64),
        udp_len17: Constant<Bits<17>> = c::<17>(UDP_LEN as u64),
        transport_len17: Constant<Bits<17>> = c::<17>((UDP_LEN + BTH_LEN) as u64),
        bth_min: Constant<Bits<17>> = c::<17>((UDP_LEN + BTH_LEN + ICRC_LEN) as u64),
        max_payload: Constant<Bits<17>> = c::<17>(MAX_PAYLOAD as u64),
        zero17: Constant<Bits<17>> = c::<17>(0),
        beat10: Constant<Bits<10>> = c::<10>(64),
        low6_10: Constant<Bits<10>> = c::<10>(63),
        bits512: Constant<Bits<10>> = c::<10>(512),
        three17: Constant<Bits<17>> = c::<17>(3),
        roce_port: Constant<Bits<16>> = c::<16>(ROCE_UDP_PORT as u64),
        proto_udp: Constant<Bits<8>> = c::<8>(PROTO_UDP as u64),
        version4: Constant<Bits<4>> = c::<4>(4),
        version6: Constant<Bits<4>> = c::<4>(6),
        ihl5: Constant<Bits<4>> = c::<4>(5),
        ok: Constant<Bits<5>> = c::<5>(0),
        r_not_roce: Constant<Bits<5>> = c::<5>(DropReason::NotRoce.code() as u64),
        r_csum: Constant<Bits<5>> = c::<5>(DropReason::Ipv4Checksum.code() as u64),
        r_options: Constant<Bits<5>> = c::<5>(DropReason::Ipv4Options.code() as u64),
        r_fragment: Constant<Bits<5>> = c::<5>(DropReason::Ipv4Fragment.code() as u64),
        r_udp_length: Constant<Bits<5>> = c::<5>(DropReason::UdpLength.code() as u64),
        r_bth_truncated: Constant<Bits<5>> = c::<5>(DropReason::BthTruncated.code() as u64),
        r_bth_version: Constant<Bits<5>> = c::<5>(DropReason::BthVersion.code() as u64),
        r_unknown_opcode: Constant<Bits<5>> = c::<5>(DropReason::UnknownOpcode.code() as u64),
        r_ext_truncated: Constant<Bits<5>> = c::<5>(DropReason::ExtTruncated.code() as u64),
        r_pad_length: Constant<Bits<5>> = c::<5>(DropReason::PadLength.code() as u64),
        r_payload_too_long: Constant<Bits<5>> = c::<5>(DropReason::PayloadTooLong.code() as u64),

        // Stage 0
        s0_valid: DFF<Bit>,
        s0_h0: DFF<Bits<512>>,
        s0_h1: DFF<Bits<512>>,
        // Stage 1
        s1_valid: DFF<Bit>,
        s1_h0: DFF<Bits<512>>,
        s1_h1: DFF<Bits<512>>,
        // Stage 2
        s2_valid: DFF<Bit>,
        s2_vlan: DFF<Bit>,
        s2_v4: DFF<Bit>,
        s2_v6: DFF<Bit>,
        s2_h0: DFF<Bits<512>>,
        s2_ip: DFF<Bits<512>>,
        s2_t: DFF<Bits<512>>,
        // Stage 3
        s3_valid: DFF<Bit>,
        s3_vlan: DFF<Bit>,
        s3_v4: DFF<Bit>,
        s3_v6: DFF<Bit>,
        s3_eth_dst: DFF<Bits<48>>,
        s3_eth_src: DFF<Bits<48>>,
        s3_tci: DFF<Bits<16>>,
        s3_v4_vihl: DFF<Bits<8>>,
        s3_v4_tos: DFF<Bits<8>>,
        s3_v4_len: DFF<Bits<17>>,
        s3_v4_frag: DFF<Bits<16>>,
        s3_v4_ttl: DFF<Bits<8>>,
        s3_v4_proto: DFF<Bits<8>>,
        s3_v4_src: DFF<Bits<128>>,
        s3_v4_dst: DFF<Bits<128>>,
        s3_v6_word0: DFF<Bits<32>>,
        s3_v6_len: DFF<Bits<17>>,
        s3_v6_next: DFF<Bits<8>>,
        s3_v6_hops: DFF<Bits<8>>,
        s3_v6_src: DFF<Bits<128>>,
        s3_v6_dst: DFF<Bits<128>>,
        s3_csum: DFF<Bits<20>>,
        s3_sport: DFF<Bits<16>>,
        s3_dport: DFF<Bits<16>>,
        s3_ulen: DFF<Bits<17>>,
        s3_opcode: DFF<Bits<8>>,
        s3_flags: DFF<Bits<8>>,
        s3_pkey: DFF<Bits<16>>,
        s3_ecnb: DFF<Bits<8>>,
        s3_dqp: DFF<Bits<24>>,
        s3_ackb: DFF<Bits<8>>,
        s3_psn: DFF<Bits<24>>,
        s3_va: DFF<Bits<64>>,
        s3_rkey: DFF<Bits<32>>,
        s3_dlen: DFF<Bits<32>>,
        s3_swap: DFF<Bits<64>>,
        s3_cmp: DFF<Bits<64>>,
        s3_syn: DFF<Bits<8>>,
        s3_msn: DFF<Bits<24>>,
        s3_aack: DFF<Bits<64>>,
        s3_ieth: DFF<Bits<32>>,
        s3_qkey: DFF<Bits<32>>,
        s3_sqp: DFF<Bits<24>>,
        s3_imm: [DFF<Bits<32>>; IMM_POSITIONS],
        // Stage 4: header fields in their final form plus lengths and lookups.
        s4_valid: DFF<Bit>,
        s4_vlan: DFF<Bit>,
        s4_v4: DFF<Bit>,
        s4_v6: DFF<Bit>,
        s4_version_ok: DFF<Bit>,
        s4_csum_ok: DFF<Bit>,
        s4_ihl_ok: DFF<Bit>,
        s4_fragment: DFF<Bit>,
        s4_proto_ok: DFF<Bit>,
        s4_dscp: DFF<Bits<6>>,
        s4_ecn: DFF<Bits<2>>,
        s4_ttl: DFF<Bits<8>>,
        s4_ip_src: DFF<Bits<128>>,
        s4_ip_dst: DFF<Bits<128>>,
        s4_ip_len: DFF<Bits<17>>,
        s4_l3_len: DFF<Bits<17>>,
        s4_l2_len: DFF<Bits<17>>,
        s4_hdr: DFF<Bits<10>>,
        s4_known: DFF<Bit>,
        s4_ext_len: DFF<Bits<17>>,
        s4_ext_short: DFF<Bit>,
        s4_body: DFF<Bits<17>>,
        s4_payload_ok: DFF<Bit>,
        s4_imm: DFF<Bits<32>>,
        // Stage 5: outputs.
        s5_valid: DFF<Bit>,
        s5_vlan: DFF<Bit>,
        s5_ipv6: DFF<Bit>,
        s5_eth_dst: DFF<Bits<48>>,
        s5_eth_src: DFF<Bits<48>>,
        s5_tci: DFF<Bits<16>>,
        s5_dscp: DFF<Bits<6>>,
        s5_ecn: DFF<Bits<2>>,
        s5_ttl: DFF<Bits<8>>,
        s5_ip_src: DFF<Bits<128>>,
        s5_ip_dst: DFF<Bits<128>>,
        s5_sport: DFF<Bits<16>>,
        s5_opcode: DFF<Bits<8>>,
        s5_flags: DFF<Bits<8>>,
        s5_pkey: DFF<Bits<16>>,
        s5_ecnb: DFF<Bits<8>>,
        s5_dqp: DFF<Bits<24>>,
        s5_ackb: DFF<Bits<8>>,
        s5_psn: DFF<Bits<24>>,
        s5_va: DFF<Bits<64>>,
        s5_rkey: DFF<Bits<32>>,
        s5_dlen: DFF<Bits<32>>,
        s5_swap: DFF<Bits<64>>,
        s5_cmp: DFF<Bits<64>>,
        s5_syn: DFF<Bits<8>>,
        s5_msn: DFF<Bits<24>>,
        s5_aack: DFF<Bits<64>>,
        s5_imm: DFF<Bits<32>>,
        s5_ieth: DFF<Bits<32>>,
        s5_qkey: DFF<Bits<32>>,
        s5_sqp: DFF<Bits<24>>,
        s5_ip_end: DFF<Bits<17>>,
        s5_ip_short: DFF<Bit>,
        s5_reason_pre: DFF<Bits<5>>,
        s5_reason_post: DFF<Bits<5>>,
        s5_payload_len: DFF<Bits<17>>,
        s5_payload_beat1: DFF<Bit>,
        s5_shift_right: DFF<Bits<10>>,
        s5_shift_left: DFF<Bits<10>>,
        s5_payload_end: DFF<Bits<17>>,
        s5_emit: DFF<Bit>,
        s5_host: DFF<Bit>,
        // Stage 3 and 4 carry the transport fields unchanged; stage 4 copies.
        s4_eth_dst: DFF<Bits<48>>,
        s4_eth_src: DFF<Bits<48>>,
        s4_tci: DFF<Bits<16>>,
        s4_sport: DFF<Bits<16>>,
        s4_dport: DFF<Bits<16>>,
        s4_ulen: DFF<Bits<17>>,
        s4_opcode: DFF<Bits<8>>,
        s4_flags: DFF<Bits<8>>,
        s4_pkey: DFF<Bits<16>>,
        s4_ecnb: DFF<Bits<8>>,
        s4_dqp: DFF<Bits<24>>,
        s4_ackb: DFF<Bits<8>>,
        s4_psn: DFF<Bits<24>>,
        s4_va: DFF<Bits<64>>,
        s4_rkey: DFF<Bits<32>>,
        s4_dlen: DFF<Bits<32>>,
        s4_swap: DFF<Bits<64>>,
        s4_cmp: DFF<Bits<64>>,
        s4_syn: DFF<Bits<8>>,
        s4_msn: DFF<Bits<24>>,
        s4_aack: DFF<Bits<64>>,
        s4_ieth: DFF<Bits<32>>,
        s4_qkey: DFF<Bits<32>>,
        s4_sqp: DFF<Bits<24>>,

        vlan: Signal<Local, Bit>,
        inner: Signal<Local, Bits<16>>,
        is_v6: Signal<Local, Bit>,
        lay: Signal<Local, Bits<2>>,
        csum: Signal<Local, Bits<20>>,
        fold1: Signal<Local, Bits<20>>,
        fold2: Signal<Local, Bits<20>>,
        opcode_imm: Signal<Local, Bits<2>>,
        ext_len: Signal<Local, Bits<17>>,
        udp_payload: Signal<Local, Bits<17>>,
        body: Signal<Local, Bits<17>>,
        payload_len: Signal<Local, Bits<17>>,
        pad: Signal<Local, Bits<17>>,
        ext_short: Signal<Local, Bit>,
        pad_bad: Signal<Local, Bit>,
        pre: Signal<Local, Bits<5>>,
        post: Signal<Local, Bits<5>>,
        ip_short: Signal<Local, Bit>,
        pad2: Signal<Local, Bits<2>>,
        payload_off: Signal<Local, Bits<10>>,
        shift_right: Signal<Local, Bits<10>>,
    }
}

const _: () = assert!(PARSE_LATENCY == 6);

impl Logic for RxHeaderParse {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s0_valid, s0_h0, s0_h1, s1_valid, s1_h0, s1_h1, s2_valid, s2_vlan, s2_v4, s2_v6, s2_h0, s2_ip, s2_t, s3_valid,
            s3_vlan, s3_v4, s3_v6, s3_eth_dst, s3_eth_src, s3_tci, s3_v4_vihl, s3_v4_tos, s3_v4_len, s3_v4_frag,
            s3_v4_ttl, s3_v4_proto, s3_v4_src, s3_v4_dst, s3_v6_word0, s3_v6_len, s3_v6_next, s3_v6_hops,
            s3_v6_src, s3_v6_dst, s3_csum, s3_sport, s3_dport, s3_ulen, s3_opcode, s3_flags, s3_pkey, s3_ecnb,
            s3_dqp, s3_ackb, s3_psn, s3_va, s3_rkey, s3_dlen, s3_swap, s3_cmp, s3_syn, s3_msn, s3_aack, s3_ieth,
            s3_qkey, s3_sqp, s4_valid, s4_vlan, s4_v4, s4_v6, s4_version_ok, s4_csum_ok, s4_ihl_ok, s4_fragment,
            s4_proto_ok, s4_dscp, s4_ecn, s4_ttl, s4_ip_src, s4_ip_dst, s4_ip_len, s4_l3_len, s4_l2_len, s4_hdr,
            s4_known, s4_ext_len, s4_ext_short, s4_body, s4_payload_ok, s4_imm, s5_valid, s5_vlan, s5_ipv6, s5_eth_dst, s5_eth_src,
            s5_tci, s5_dscp, s5_ecn, s5_ttl, s5_ip_src, s5_ip_dst, s5_sport, s5_opcode, s5_flags, s5_pkey,
            s5_ecnb, s5_dqp, s5_ackb, s5_psn, s5_va, s5_rkey, s5_dlen, s5_swap, s5_cmp, s5_syn, s5_msn, s5_aack,
            s5_imm, s5_ieth, s5_qkey, s5_sqp, s5_ip_end, s5_ip_short, s5_reason_pre, s5_reason_post,
            s5_payload_len, s5_payload_beat1, s5_shift_right, s5_shift_left, s5_payload_end, s5_emit, s5_host, s4_eth_dst, s4_eth_src, s4_tci, s4_sport, s4_dport,
            s4_ulen, s4_opcode, s4_flags, s4_pkey, s4_ecnb, s4_dqp, s4_ackb, s4_psn, s4_va, s4_rkey, s4_dlen,
            s4_swap, s4_cmp, s4_syn, s4_msn, s4_aack, s4_ieth, s4_qkey, s4_sqp
        );
        for i in 0..IMM_POSITIONS {
            self.s3_imm[i].clock.next = self.clock.val();
            self.s3_imm[i].d.next = self.s3_imm[i].q.val();
        }

        // Stage 0: the two beats, registered where the pipeline picks them up.
        self.s0_valid.d.next = self.in_valid.val();
        if self.in_valid.val() {
            self.s0_h0.d.next = self.in_h0.val();
            self.s0_h1.d.next = self.in_h1.val();
        }
        // Stage 1: layer windows by constant shifts.
        self.s1_valid.d.next = self.s0_valid.q.val();
        self.s1_h0.d.next = self.s0_h0.q.val();
        self.s1_h1.d.next = self.s0_h1.q.val();
        self.vlan.next = self.s1_h0.q.val().get_bits::<16>(self.ethertype_off.val().index()) == self.tpid.val();
        self.inner.next = self.s1_h0.q.val().get_bits::<16>(self.ethertype_off.val().index());
        if self.vlan.val() {
            self.inner.next = self.s1_h0.q.val().get_bits::<16>(self.inner_type_off.val().index());
        }
        self.is_v6.next = self.inner.val() == self.ipv6_type.val();
        // Layout index: 2 * vlan + ipv6.
        self.lay.next = self.layout_id[0].val();
        if self.is_v6.val() {
            self.lay.next = self.layout_id[1].val();
        }
        if self.vlan.val() {
            self.lay.next = self.lay.val() | self.layout_id[2].val();
        }
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_vlan.d.next = self.vlan.val();
        self.s2_v4.d.next = self.inner.val() == self.ipv4_type.val();
        self.s2_v6.d.next = self.is_v6.val();
        self.s2_h0.d.next = self.s1_h0.q.val();
        self.s2_ip.d.next = (self.s1_h0.q.val() >> self.ip_shift[0].val()) | (self.s1_h1.q.val() << self.ip_shift[1].val());
        if self.vlan.val() {
            self.s2_ip.d.next = (self.s1_h0.q.val() >> self.ip_shift[2].val()) | (self.s1_h1.q.val() << self.ip_shift[3].val());
        }
        for k in 0..4 {
            if self.lay.val().index() == k {
                self.s2_t.d.next = (self.s1_h0.q.val() >> self.t_shift[k * 2].val())
                    | (self.s1_h1.q.val() << self.t_shift[k * 2 + 1].val());
            }
        }

        // Stage 2: fields out of the byte-reversed windows; IPv4 checksum sum.
        self.eth_rev.a.next = self.s2_h0.q.val();
        self.ip_rev.a.next = self.s2_ip.q.val();
        self.t_rev.a.next = self.s2_t.q.val();
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_vlan.d.next = self.s2_vlan.q.val();
        self.s3_v4.d.next = self.s2_v4.q.val();
        self.s3_v6.d.next = self.s2_v6.q.val();
        self.s3_eth_dst.d.next = self.eth_rev.y.val().get_bits::<48>(self.f_eth_dst.val().index());
        self.s3_eth_src.d.next = self.eth_rev.y.val().get_bits::<48>(self.f_eth_src.val().index());
        self.s3_tci.d.next = self.eth_rev.y.val().get_bits::<16>(self.f_tci.val().index());
        self.s3_v4_vihl.d.next = self.ip_rev.y.val().get_bits::<8>(self.f_v4_vihl.val().index());
        self.s3_v4_tos.d.next = self.ip_rev.y.val().get_bits::<8>(self.f_v4_tos.val().index());
        self.s3_v4_len.d.next = self.ip_rev.y.val().get_bits::<17>(self.f_v4_len.val().index()) & self.low16.val();
        self.s3_v4_frag.d.next = self.ip_rev.y.val().get_bits::<16>(self.f_v4_frag.val().index());
        self.s3_v4_ttl.d.next = self.ip_rev.y.val().get_bits::<8>(self.f_v4_ttl.val().index());
        self.s3_v4_proto.d.next = self.ip_rev.y.val().get_bits::<8>(self.f_v4_proto.val().index());
        // IPv4 addresses widened to 128 bits by slicing wide and masking (no casts in rust-hdl).
        self.s3_v4_src.d.next = self.ip_rev.y.val().get_bits::<128>(self.f_v4_src.val().index()) & self.low32_128.val();
        self.s3_v4_dst.d.next = self.ip_rev.y.val().get_bits::<128>(self.f_v4_dst.val().index()) & self.low32_128.val();
        self.s3_v6_word0.d.next = self.ip_rev.y.val().get_bits::<32>(self.f_v6_word0.val().index());
        self.s3_v6_len.d.next = self.ip_rev.y.val().get_bits::<17>(self.f_v6_len.val().index()) & self.low16.val();
        self.s3_v6_next.d.next = self.ip_rev.y.val().get_bits::<8>(self.f_v6_next.val().index());
        self.s3_v6_hops.d.next = self.ip_rev.y.val().get_bits::<8>(self.f_v6_hops.val().index());
        self.s3_v6_src.d.next = self.ip_rev.y.val().get_bits::<128>(self.f_v6_src.val().index());
        self.s3_v6_dst.d.next = self.ip_rev.y.val().get_bits::<128>(self.f_v6_dst.val().index());
        self.csum.next = self.s2_ip.q.val().get_bits::<20>(self.word[0].val().index()) & self.low16_20.val();
        for i in 1..10 {
            self.csum.next = self.csum.val()
                + (self.s2_ip.q.val().get_bits::<20>(self.word[i].val().index()) & self.low16_20.val());
        }
        self.s3_csum.d.next = self.csum.val();
        self.s3_sport.d.next = self.t_rev.y.val().get_bits::<16>(self.f_sport.val().index());
        self.s3_dport.d.next = self.t_rev.y.val().get_bits::<16>(self.f_dport.val().index());
        self.s3_ulen.d.next = self.t_rev.y.val().get_bits::<17>(self.f_ulen.val().index()) & self.low16.val();
        self.s3_opcode.d.next = self.t_rev.y.val().get_bits::<8>(self.f_opcode.val().index());
        self.s3_flags.d.next = self.t_rev.y.val().get_bits::<8>(self.f_flags.val().index());
        self.s3_pkey.d.next = self.t_rev.y.val().get_bits::<16>(self.f_pkey.val().index());
        self.s3_ecnb.d.next = self.t_rev.y.val().get_bits::<8>(self.f_ecnb.val().index());
        self.s3_dqp.d.next = self.t_rev.y.val().get_bits::<24>(self.f_dqp.val().index());
        self.s3_ackb.d.next = self.t_rev.y.val().get_bits::<8>(self.f_ackb.val().index());
        self.s3_psn.d.next = self.t_rev.y.val().get_bits::<24>(self.f_psn.val().index());
        self.s3_va.d.next = self.t_rev.y.val().get_bits::<64>(self.f_va.val().index());
        self.s3_rkey.d.next = self.t_rev.y.val().get_bits::<32>(self.f_rkey.val().index());
        self.s3_dlen.d.next = self.t_rev.y.val().get_bits::<32>(self.f_dlen.val().index());
        self.s3_swap.d.next = self.t_rev.y.val().get_bits::<64>(self.f_swap.val().index());
        self.s3_cmp.d.next = self.t_rev.y.val().get_bits::<64>(self.f_cmp.val().index());
        self.s3_syn.d.next = self.t_rev.y.val().get_bits::<8>(self.f_syn.val().index());
        self.s3_msn.d.next = self.t_rev.y.val().get_bits::<24>(self.f_msn.val().index());
        self.s3_aack.d.next = self.t_rev.y.val().get_bits::<64>(self.f_aack.val().index());
        self.s3_ieth.d.next = self.t_rev.y.val().get_bits::<32>(self.f_ieth.val().index());
        self.s3_qkey.d.next = self.t_rev.y.val().get_bits::<32>(self.f_qkey.val().index());
        self.s3_sqp.d.next = self.t_rev.y.val().get_bits::<24>(self.f_sqp.val().index());
        for i in 0..IMM_POSITIONS {
            self.s3_imm[i].d.next = self.t_rev.y.val().get_bits::<32>(self.f_imm[i].val().index());
        }

        // Stage 3: opcode table, checksum fold, IP fields by version.
        self.s4_valid.d.next = self.s3_valid.q.val();
        self.s4_vlan.d.next = self.s3_vlan.q.val();
        self.s4_v4.d.next = self.s3_v4.q.val();
        self.s4_v6.d.next = self.s3_v6.q.val();
        self.fold1.next = (self.s3_csum.q.val() & self.low16_20.val()) + (self.s3_csum.q.val() >> 16);
        self.fold2.next = (self.fold1.val() & self.low16_20.val()) + (self.fold1.val() >> 16);
        self.s4_csum_ok.d.next = (self.fold2.val() & self.low16_20.val()) == self.ones16_20.val();
        self.s4_ihl_ok.d.next = self.s3_v4_vihl.q.val().get_bits::<4>(0) == self.ihl5.val();
        // More-fragments flag or a fragment offset.
        self.s4_fragment.d.next = self.s3_v4_frag.q.val().get_bits::<14>(0).any();
        self.s4_eth_dst.d.next = self.s3_eth_dst.q.val();
        self.s4_eth_src.d.next = self.s3_eth_src.q.val();
        self.s4_tci.d.next = self.s3_tci.q.val();
        self.s4_l2_len.d.next = self.l2_len[0].val();
        self.s4_hdr.d.next = self.l2_len10[0].val() + self.l3_len10[0].val() + self.transport_len10.val();
        if self.s3_vlan.q.val() {
            self.s4_l2_len.d.next = self.l2_len[1].val();
            self.s4_hdr.d.next = self.l2_len10[1].val() + self.l3_len10[0].val() + self.transport_len10.val();
        }
        if self.s3_v6.q.val() {
            self.s4_version_ok.d.next = self.s3_v6_word0.q.val().get_bits::<4>(28) == self.version6.val();
            self.s4_proto_ok.d.next = self.s3_v6_next.q.val() == self.proto_udp.val();
            self.s4_dscp.d.next = self.s3_v6_word0.q.val().get_bits::<6>(22);
            self.s4_ecn.d.next = self.s3_v6_word0.q.val().get_bits::<2>(20);
            self.s4_ttl.d.next = self.s3_v6_hops.q.val();
            self.s4_ip_src.d.next = self.s3_v6_src.q.val();
            self.s4_ip_dst.d.next = self.s3_v6_dst.q.val();
            self.s4_ip_len.d.next = self.s3_v6_len.q.val() + self.l3_len[1].val();
            self.s4_l3_len.d.next = self.l3_len[1].val();
            if self.s3_vlan.q.val() {
                self.s4_hdr.d.next = self.l2_len10[1].val() + self.l3_len10[1].val() + self.transport_len10.val();
            } else {
                self.s4_hdr.d.next = self.l2_len10[0].val() + self.l3_len10[1].val() + self.transport_len10.val();
            }
        } else {
            self.s4_version_ok.d.next = self.s3_v4_vihl.q.val().get_bits::<4>(4) == self.version4.val();
            self.s4_proto_ok.d.next = self.s3_v4_proto.q.val() == self.proto_udp.val();
            self.s4_dscp.d.next = self.s3_v4_tos.q.val().get_bits::<6>(2);
            self.s4_ecn.d.next = self.s3_v4_tos.q.val().get_bits::<2>(0);
            self.s4_ttl.d.next = self.s3_v4_ttl.q.val();
            self.s4_ip_src.d.next = self.s3_v4_src.q.val();
            self.s4_ip_dst.d.next = self.s3_v4_dst.q.val();
            self.s4_ip_len.d.next = self.s3_v4_len.q.val();
            self.s4_l3_len.d.next = self.l3_len[0].val();
        }
        self.s4_known.d.next = false;
        self.ext_len.next = self.zero17.val();
        self.s4_payload_ok.d.next = false;
        self.opcode_imm.next = self.imm_id[0].val();
        for i in 0..NUM_OPCODES {
            if self.s3_opcode.q.val() == self.op_code[i].val() {
                self.s4_known.d.next = true;
                self.ext_len.next = self.op_ext_len[i].val();
                self.s4_payload_ok.d.next = self.op_payload[i].val();
                self.opcode_imm.next = self.op_imm[i].val();
            }
        }
        // Lengths after the extended headers, a stage ahead of the checks that use them.
        self.s4_ext_len.d.next = self.ext_len.val();
        self.s4_ext_short.d.next = self.s3_ulen.q.val() < (self.bth_min.val() + self.ext_len.val());
        self.s4_body.d.next = self.s3_ulen.q.val() - self.bth_min.val() - self.ext_len.val();
        self.s4_imm.d.next = self.s3_imm[0].q.val();
        for i in 1..IMM_POSITIONS {
            if self.opcode_imm.val() == self.imm_id[i].val() {
                self.s4_imm.d.next = self.s3_imm[i].q.val();
            }
        }
        self.s4_sport.d.next = self.s3_sport.q.val();
        self.s4_dport.d.next = self.s3_dport.q.val();
        self.s4_ulen.d.next = self.s3_ulen.q.val();
        self.s4_opcode.d.next = self.s3_opcode.q.val();
        self.s4_flags.d.next = self.s3_flags.q.val();
        self.s4_pkey.d.next = self.s3_pkey.q.val();
        self.s4_ecnb.d.next = self.s3_ecnb.q.val();
        self.s4_dqp.d.next = self.s3_dqp.q.val();
        self.s4_ackb.d.next = self.s3_ackb.q.val();
        self.s4_psn.d.next = self.s3_psn.q.val();
        self.s4_va.d.next = self.s3_va.q.val();
        self.s4_rkey.d.next = self.s3_rkey.q.val();
        self.s4_dlen.d.next = self.s3_dlen.q.val();
        self.s4_swap.d.next = self.s3_swap.q.val();
        self.s4_cmp.d.next = self.s3_cmp.q.val();
        self.s4_syn.d.next = self.s3_syn.q.val();
        self.s4_msn.d.next = self.s3_msn.q.val();
        self.s4_aack.d.next = self.s3_aack.q.val();
        self.s4_ieth.d.next = self.s3_ieth.q.val();
        self.s4_qkey.d.next = self.s3_qkey.q.val();
        self.s4_sqp.d.next = self.s3_sqp.q.val();

        // Stage 4: the header checks, in the specified order (the last assignment wins).
        self.pre.next = self.ok.val();
        if !self.s4_proto_ok.q.val() {
            self.pre.next = self.r_not_roce.val();
        }
        if self.s4_v4.q.val() & self.s4_fragment.q.val() {
            self.pre.next = self.r_fragment.val();
        }
        if self.s4_v4.q.val() & !self.s4_ihl_ok.q.val() {
            self.pre.next = self.r_options.val();
        }
        if self.s4_v4.q.val() & !self.s4_csum_ok.q.val() {
            self.pre.next = self.r_csum.val();
        }
        if !(self.s4_v4.q.val() | self.s4_v6.q.val()) | !self.s4_version_ok.q.val() {
            self.pre.next = self.r_not_roce.val();
        }
        self.ip_short.next = self.s4_ip_len.q.val() < self.s4_l3_len.q.val();
        self.udp_payload.next = self.s4_ip_len.q.val() - self.s4_l3_len.q.val();
        self.ext_short.next = self.s4_ext_short.q.val();
        self.body.next = self.s4_body.q.val();
        self.pad2.next = self.s4_flags.q.val().get_bits::<2>(4);
        self.pad.next = self.pad_values[0].val();
        for i in 1..4 {
            if self.pad2.val().index() == i {
                self.pad.next = self.pad_values[i].val();
            }
        }
        self.payload_len.next = self.body.val() - self.pad.val();
        self.pad_bad.next = ((self.body.val() & self.three17.val()) != self.zero17.val())
            | (self.pad.val() > self.body.val())
            | (!self.s4_payload_ok.q.val() & (self.body.val() != self.zero17.val()));
        self.post.next = self.ok.val();
        if self.payload_len.val() > self.max_payload.val() {
            self.post.next = self.r_payload_too_long.val();
        }
        if self.pad_bad.val() {
            self.post.next = self.r_pad_length.val();
        }
        if self.ext_short.val() {
            self.post.next = self.r_ext_truncated.val();
        }
        if !self.s4_known.q.val() {
            self.post.next = self.r_unknown_opcode.val();
        }
        if self.s4_flags.q.val().get_bits::<4>(0).any() {
            self.post.next = self.r_bth_version.val();
        }
        if self.s4_ulen.q.val() < self.bth_min.val() {
            self.post.next = self.r_bth_truncated.val();
        }
        if self.s4_ulen.q.val() != self.udp_payload.val() {
            self.post.next = self.r_udp_length.val();
        }
        if self.s4_dport.q.val() != self.roce_port.val() {
            self.post.next = self.r_not_roce.val();
        }
        if self.udp_payload.val() < self.udp_len17.val() {
            self.post.next = self.r_udp_length.val();
        }
        self.s5_valid.d.next = self.s4_valid.q.val();
        self.s5_vlan.d.next = self.s4_vlan.q.val();
        self.s5_ipv6.d.next = self.s4_v6.q.val();
        self.s5_eth_dst.d.next = self.s4_eth_dst.q.val();
        self.s5_eth_src.d.next = self.s4_eth_src.q.val();
        self.s5_tci.d.next = self.s4_tci.q.val();
        self.s5_dscp.d.next = self.s4_dscp.q.val();
        self.s5_ecn.d.next = self.s4_ecn.q.val();
        self.s5_ttl.d.next = self.s4_ttl.q.val();
        self.s5_ip_src.d.next = self.s4_ip_src.q.val();
        self.s5_ip_dst.d.next = self.s4_ip_dst.q.val();
        self.s5_sport.d.next = self.s4_sport.q.val();
        self.s5_opcode.d.next = self.s4_opcode.q.val();
        self.s5_flags.d.next = self.s4_flags.q.val();
        self.s5_pkey.d.next = self.s4_pkey.q.val();
        self.s5_ecnb.d.next = self.s4_ecnb.q.val();
        self.s5_dqp.d.next = self.s4_dqp.q.val();
        self.s5_ackb.d.next = self.s4_ackb.q.val();
        self.s5_psn.d.next = self.s4_psn.q.val();
        self.s5_va.d.next = self.s4_va.q.val();
        self.s5_rkey.d.next = self.s4_rkey.q.val();
        self.s5_dlen.d.next = self.s4_dlen.q.val();
        self.s5_swap.d.next = self.s4_swap.q.val();
        self.s5_cmp.d.next = self.s4_cmp.q.val();
        self.s5_syn.d.next = self.s4_syn.q.val();
        self.s5_msn.d.next = self.s4_msn.q.val();
        self.s5_aack.d.next = self.s4_aack.q.val();
        self.s5_imm.d.next = self.s4_imm.q.val();
        self.s5_ieth.d.next = self.s4_ieth.q.val();
        self.s5_qkey.d.next = self.s4_qkey.q.val();
        self.s5_sqp.d.next = self.s4_sqp.q.val();
        self.s5_ip_end.d.next = self.s4_l2_len.q.val() + self.s4_ip_len.q.val();
        self.s5_ip_short.d.next = self.ip_short.val();
        self.s5_reason_pre.d.next = self.pre.val();
        self.s5_reason_post.d.next = self.post.val();
        self.s5_payload_len.d.next = self.payload_len.val();
        self.payload_off.next = self.s4_hdr.q.val() + self.s4_ext_len.q.val().get_bits::<10>(0);
        self.s5_payload_beat1.d.next = self.payload_off.val() >= self.beat10.val();
        self.shift_right.next = (self.payload_off.val() & self.low6_10.val()) << 3;
        self.s5_shift_right.d.next = self.shift_right.val();
        self.s5_shift_left.d.next = self.bits512.val() - self.shift_right.val();
        self.s5_payload_end.d.next = self.s4_l2_len.q.val()
            + self.s4_l3_len.q.val()
            + self.transport_len17.val()
            + self.s4_ext_len.q.val()
            + self.payload_len.val();
        self.s5_host.d.next = (self.pre.val() == self.r_not_roce.val())
            | ((self.pre.val() == self.ok.val()) & (self.post.val() == self.r_not_roce.val()));
        self.s5_emit.d.next = (self.pre.val() == self.ok.val())
            & !self.ip_short.val()
            & (self.post.val() == self.ok.val())
            & (self.payload_len.val() != self.zero17.val());

        self.out_valid.next = self.s5_valid.q.val();
        self.out_vlan.next = self.s5_vlan.q.val();
        self.out_ipv6.next = self.s5_ipv6.q.val();
        self.out_eth_dst.next = self.s5_eth_dst.q.val();
        self.out_eth_src.next = self.s5_eth_src.q.val();
        self.out_vlan_tci.next = self.s5_tci.q.val();
        self.out_dscp.next = self.s5_dscp.q.val();
        self.out_ecn.next = self.s5_ecn.q.val();
        self.out_ttl.next = self.s5_ttl.q.val();
        self.out_ip_src.next = self.s5_ip_src.q.val();
        self.out_ip_dst.next = self.s5_ip_dst.q.val();
        self.out_udp_src_port.next = self.s5_sport.q.val();
        self.out_opcode.next = self.s5_opcode.q.val();
        self.out_bth_flags.next = self.s5_flags.q.val();
        self.out_pkey.next = self.s5_pkey.q.val();
        self.out_fecn.next = self.s5_ecnb.q.val().get_bit(7);
        self.out_becn.next = self.s5_ecnb.q.val().get_bit(6);
        self.out_dest_qp.next = self.s5_dqp.q.val();
        self.out_ack_req.next = self.s5_ackb.q.val().get_bit(7);
        self.out_psn.next = self.s5_psn.q.val();
        self.out_va.next = self.s5_va.q.val();
        self.out_rkey.next = self.s5_rkey.q.val();
        self.out_dma_len.next = self.s5_dlen.q.val();
        self.out_swap_add.next = self.s5_swap.q.val();
        self.out_compare.next = self.s5_cmp.q.val();
        self.out_aeth_syndrome.next = self.s5_syn.q.val();
        self.out_aeth_msn.next = self.s5_msn.q.val();
        self.out_atomic_ack.next = self.s5_aack.q.val();
        self.out_imm.next = self.s5_imm.q.val();
        self.out_ieth_rkey.next = self.s5_ieth.q.val();
        self.out_qkey.next = self.s5_qkey.q.val();
        self.out_src_qp.next = self.s5_sqp.q.val();
        self.out_ip_end.next = self.s5_ip_end.q.val();
        self.out_ip_short.next = self.s5_ip_short.q.val();
        self.out_reason_pre.next = self.s5_reason_pre.q.val();
        self.out_reason_post.next = self.s5_reason_post.q.val();
        self.out_payload_len.next = self.s5_payload_len.q.val();
        self.out_payload_beat1.next = self.s5_payload_beat1.q.val();
        self.out_shift_right.next = self.s5_shift_right.q.val();
        self.out_shift_left.next = self.s5_shift_left.q.val();
        self.out_payload_end.next = self.s5_payload_end.q.val();
        self.out_emit.next = self.s5_emit.q.val();
        self.out_host.next = self.s5_host.q.val();
    }
}
